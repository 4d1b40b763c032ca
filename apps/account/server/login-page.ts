import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { paths } from '../src/shared/config/paths.ts';
import { ACCESS_EMAIL_SLOT } from '../src/prerender/slots.ts';
import { strongEtag } from './static-files.ts';

// The login route's page: the build's page with the Email step already in its root element (the
// markup `vite build` rendered into .vite/login-root.html, with this application's access contact),
// so the Welcome card is painted with the first response. Made once per application at start-up,
// in each encoding a browser may ask for.

/** Where `vite build` writes the pre-rendered Email step (vite.config.ts): a dot directory, never served. */
export const LOGIN_ROOT_FILE = join('.vite', 'login-root.html');
const ROOT_ELEMENT = '<div id="root"></div>';

export interface Representation {
  body: Buffer;
  etag: string;
  encoding: 'br' | 'gzip' | null;
}

export interface LoginPage {
  /** The representation for this request's Accept-Encoding. */
  pick(req: IncomingMessage): Representation;
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

/**
 * The login page for an application, or null for a build without the pre-rendered step (then the
 * login route gets the build's page like every other route).
 */
export async function loginPage(distDir: string, accessEmail: string): Promise<LoginPage | null> {
  const rootFile = join(distDir, LOGIN_ROOT_FILE);
  if (!existsSync(rootFile)) return null;
  const [page, root] = await Promise.all([
    readFile(join(distDir, 'index.html'), 'utf8'),
    readFile(rootFile, 'utf8'),
  ]);
  if (!page.includes(ROOT_ELEMENT)) return null;
  const filled = root.replaceAll(ACCESS_EMAIL_SLOT, escapeHtml(accessEmail));
  const html = Buffer.from(page.replace(ROOT_ELEMENT, `<div id="root">${filled}</div>`));
  const plain = representation(html, null);
  const br = representation(
    brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
    'br',
  );
  const gzip = representation(gzipSync(html, { level: constants.Z_BEST_COMPRESSION }), 'gzip');
  return {
    pick(req) {
      const header = req.headers['accept-encoding'];
      if (accepts(header, 'br')) return br;
      if (accepts(header, 'gzip')) return gzip;
      return plain;
    },
  };
}
