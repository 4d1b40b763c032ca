import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chooseLocale, DEFAULT_LOCALE, LOCALES, type Locale } from '@acme/i18n';
import { paths } from '../src/shared/config/paths.ts';
import { ACCESS_EMAIL_SLOT } from '../src/prerender/slots.ts';
import { registry } from '../src/shared/storage/registry.ts';
import { deferScripts } from './deferred-start.ts';
import { requestCookies } from './request-cookies.ts';
import { strongEtag } from './static-files.ts';

// The login route's page: the build's page with the Email step already in its root element (the
// markup `vite build` rendered into .vite/login-root.<locale>.html, with this application's access
// contact) and the app's stylesheet in a <style> element, so the Welcome card is painted with the
// first response, with no other request before it. Made once per application at start-up, in each
// locale and each encoding a browser may ask for. The locale is chosen as the app's first render
// chooses it (the person's setting as last seen in this browser, its cookie here; then the
// browser's languages, Accept-Language here; then English), so the app takes the card over as it
// is, without a change of language.

/** Where `vite build` writes a locale's pre-rendered Email step (vite.config.ts): a dot directory, never served. */
export function loginRootFile(locale: Locale): string {
  return join('.vite', `login-root.${locale}.html`);
}

/** What the login page's representation depends on, besides its URL. */
export const LOGIN_PAGE_VARY = 'Accept-Encoding, Accept-Language, Cookie';
const ROOT_ELEMENT = '<div id="root"></div>';
/** An empty element right after the root: the page's first paint waits until the parser is past it. */
const ROOT_END = 'login-root-end';

export interface Representation {
  body: Buffer;
  etag: string;
  encoding: 'br' | 'gzip' | null;
}

export interface LoginPage {
  /** The representation for this request's Accept-Language and Accept-Encoding. */
  pick(req: IncomingMessage): Representation;
  /** The CSP sources (`'sha256-…'`) of the page's inline stylesheet, for its `style-src`. */
  styleSources: string[];
  /** The CSP sources of the page's inline script (deferred-start.ts), for its `script-src`. */
  scriptSources: string[];
}

/** The build's stylesheet link (one, the app's entry CSS), as Vite writes it into index.html. */
const STYLESHEET_LINK = /<link rel="stylesheet"[^>]* href="\/account\/(assets\/[\w.-]+\.css)">/;

/**
 * The page with its stylesheet link replaced by the stylesheet itself, and that style's CSP hash.
 * A page without one, or whose stylesheet could close the element, keeps its link.
 */
async function inlineStylesheet(
  distDir: string,
  page: string,
): Promise<{ page: string; styleSources: string[] }> {
  const link = STYLESHEET_LINK.exec(page);
  const file = link ? join(distDir, link[1]!) : null;
  if (!link || !file || !existsSync(file)) return { page, styleSources: [] };
  const css = await readFile(file, 'utf8');
  if (/<\/style/i.test(css)) return { page, styleSources: [] };
  const hash = createHash('sha256').update(css).digest('base64');
  // Painting waits until the parser is past the root element (the Email step), as it waited for the
  // linked stylesheet: the card paints whole, in one frame, not piece by piece as the parser goes.
  const inline = `<style>${css}</style><link rel="expect" href="#${ROOT_END}" blocking="render">`;
  return { page: page.replace(link[0], () => inline), styleSources: [`'sha256-${hash}'`] };
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Whether the request is for the login route (with or without a query, with or without a final slash). */
export function isLoginPage(req: IncomingMessage): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  return pathname === paths.login || pathname === `${paths.login}/`;
}

/** Whether Accept-Encoding allows `coding` (listed without `q=0`). */
function accepts(header: string | undefined, coding: string): boolean {
  return (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim().toLowerCase() !== coding) return false;
    return !params.some((p) => /^\s*q=0(?:\.0*)?\s*$/.test(p));
  });
}

function representation(body: Buffer, encoding: Representation['encoding']): Representation {
  return { body, etag: strongEtag(body), encoding };
}

interface Encodings {
  plain: Representation;
  br: Representation;
  gzip: Representation;
}

function encodings(html: Buffer): Encodings {
  return {
    plain: representation(html, null),
    br: representation(
      brotliCompressSync(html, {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
      }),
      'br',
    ),
    gzip: representation(gzipSync(html, { level: constants.Z_BEST_COMPRESSION }), 'gzip'),
  };
}

/** The person's language setting as this browser keeps it (the app writes it), or null. */
function localeSetting(req: IncomingMessage): unknown {
  const raw = requestCookies(req).get(registry.locale.key);
  if (raw === undefined) return null;
  try {
    return JSON.parse(decodeURIComponent(raw));
  } catch {
    return null;
  }
}

/** The build's `<html lang="…">`, which each locale's page states as its own. */
const HTML_LANG = /<html lang="[^"]*"/;

/**
 * The login page for an application, or null for a build without the pre-rendered step (then the
 * login route gets the build's page like every other route). A locale whose step the build did not
 * render gets the English page.
 */
export async function loginPage(distDir: string, accessEmail: string): Promise<LoginPage | null> {
  if (!existsSync(join(distDir, loginRootFile(DEFAULT_LOCALE)))) return null;
  const built = await readFile(join(distDir, 'index.html'), 'utf8');
  if (!built.includes(ROOT_ELEMENT)) return null;
  const styled = await inlineStylesheet(distDir, built);
  const { page, scriptSources } = deferScripts(styled.page);
  const pages = new Map<Locale, Encodings>();
  for (const locale of LOCALES) {
    const rootFile = join(distDir, loginRootFile(locale));
    if (!existsSync(rootFile)) continue;
    const filled = (await readFile(rootFile, 'utf8')).replaceAll(ACCESS_EMAIL_SLOT, escapeHtml(accessEmail));
    const html = page
      .replace(HTML_LANG, `<html lang="${locale}"`)
      .replace(ROOT_ELEMENT, () => `<div id="root">${filled}</div><template id="${ROOT_END}"></template>`);
    pages.set(locale, encodings(Buffer.from(html)));
  }
  return {
    styleSources: styled.styleSources,
    scriptSources,
    pick(req) {
      const locale = chooseLocale({ setting: localeSetting(req), accept: req.headers['accept-language'] });
      const { br, gzip, plain } = pages.get(locale) ?? pages.get(DEFAULT_LOCALE)!;
      const header = req.headers['accept-encoding'];
      if (accepts(header, 'br')) return br;
      if (accepts(header, 'gzip')) return gzip;
      return plain;
    },
  };
}
