import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AccountConfig, Application } from '../src/shared/config/env.ts';
import { accountConfigSchema, defaultConfig } from '../src/shared/config/env.ts';
import { authorizationRedirect, redirectsToAuthorization } from './authorize-redirect.ts';
import { isLoginPage, LOGIN_PAGE_VARY, loginPage } from './login-page.ts';
import { matchesEtag, REVALIDATE, staticFiles, strongEtag } from './static-files.ts';
import { instrumentHandler, type AccountTelemetry } from './telemetry.ts';

// Serves the one Vite build for an application (Platform on 4000, MAGIC on 4001, … AI UAT on 4007) with its runtime
// configuration and the security headers below. No inline script: the configuration is a
// separate script, /account/runtime-config.js.

// This file is apps/account/server/serve.ts, or compiled, apps/account/server/dist/server/serve.js.
const compiled = import.meta.url.endsWith('.js');
export const appDir = resolve(
  dirname(fileURLToPath(import.meta.url)),
  ...(compiled ? ['..', '..', '..'] : ['..']),
);
export const defaultDistDir = join(appDir, 'dist');
const BASE = '/account/';

export interface ServeAppOptions {
  port: number;
  application: Application;
  distDir?: string;
  /** Overrides of the development defaults for this application (validated). */
  config?: Partial<AccountConfig>;
  host?: string;
  /**
   * Development only: a handler tried before everything else (the Teams host page of the
   * stand-ins, which teams-js accepts only from the app's own origin). Returns true if it answered.
   */
  devHandler?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Request ids, request logs and metrics (telemetry.ts); none in the server's own tests. */
  telemetry?: AccountTelemetry;
}

export interface ServedApp {
  url: string;
  config: AccountConfig;
  close(): Promise<void>;
}

export function resolveConfig(
  application: Application,
  overrides: Partial<AccountConfig> = {},
): AccountConfig {
  const merged = { ...defaultConfig(application), ...overrides, application };
  const result = accountConfigSchema.safeParse(merged);
  if (!result.success) {
    throw new Error(
      `Invalid account app configuration: ${result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return result.data;
}

export function runtimeConfigScript(config: AccountConfig): string {
  const json = JSON.stringify(config)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return `window.__ACCOUNT_CONFIG__ = Object.freeze(${json});\n`;
}

function origin(url: string): string {
  return new URL(url).origin;
}

/** Microsoft's Teams and Office hosts, which frame MAGIC (it runs inside Teams and Office). */
export const MICROSOFT_FRAME_ANCESTORS = [
  'https://teams.microsoft.com',
  'https://*.teams.microsoft.com',
  'https://teams.cloud.microsoft',
  'https://*.cloud.microsoft',
  'https://*.office.com',
  'https://*.office365.com',
  'https://*.microsoft365.com',
  'https://outlook.office.com',
] as const;

/** Who may frame the app: MAGIC's Teams and Office hosts (and the dev Teams host page); Platform nobody. */
export function frameAncestors(config: AccountConfig): string {
  if (config.application !== 'magic' || !config.m365) return "'none'";
  const extra = config.m365.extraFrameAncestors.map(origin);
  return ["'self'", ...MICROSOFT_FRAME_ANCESTORS, ...new Set(extra)].join(' ');
}

/**
 * `form-action` lists our own services only. Single sign-on leaves for an organisation's provider by
 * a top-level navigation (the SSO step submits as JSON, then follows `redirect_browser_to`), which
 * form-action does not govern: a provider an org-admin sets up in the console works at once.
 */
export function securityHeaders(
  config: AccountConfig,
  inline: { styleSources: string[]; scriptSources: string[] } = { styleSources: [], scriptSources: [] },
): Record<string, string> {
  // MSAL calls Entra's token endpoint from the browser: the real authority, or the local stand-in.
  const microsoft = config.m365 ? [origin(config.m365.entraUrl ?? config.m365.authority)] : [];
  const services = [
    ...new Set(
      [config.identityUrl, config.oauth2Url, config.usersUrl, config.agentUrl].map(origin).concat(microsoft),
    ),
  ];
  const formTargets = [...new Set([origin(config.identityUrl), origin(config.oauth2Url)])];
  const csp = [
    "default-src 'self'",
    // A page's own inline script by its hash only (the login page's, deferred-start.ts).
    ["script-src 'self'", ...inline.scriptSources].join(' '),
    `connect-src 'self' ${services.join(' ')}`,
    // https: an application's logo on the consent screen (its logo_uri, https only, no referrer).
    "img-src 'self' data: https:",
    // A page's own inline stylesheet by its hash only (the login page's, login-page.ts).
    ["style-src 'self'", ...inline.styleSources].join(' '),
    `frame-ancestors ${frameAncestors(config)}`,
    "base-uri 'none'",
    `form-action 'self' ${formTargets.join(' ')}`,
  ].join('; ');
  const headers: Record<string, string> = {
    'Content-Security-Policy': csp,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  };
  // Older browsers ignore frame-ancestors: an app nobody may frame says so twice.
  if (frameAncestors(config) === "'none'") headers['X-Frame-Options'] = 'DENY';
  return headers;
}

export async function serveApp(options: ServeAppOptions): Promise<ServedApp> {
  const distDir = resolve(options.distDir ?? defaultDistDir);
  const config = resolveConfig(options.application, options.config);
  const headers = securityHeaders(config);
  const configScript = runtimeConfigScript(config);
  const configEtag = strongEtag(configScript);
  const files = await staticFiles(distDir);
  const login = await loginPage(distDir, config.accessEmail);
  const loginHeaders = login ? securityHeaders(config, login) : headers;

  function send(
    res: ServerResponse,
    req: IncomingMessage,
    status: number,
    type: string,
    body: Buffer | string,
    cache: string,
    etag: string,
  ) {
    res.writeHead(status, {
      ...headers,
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': cache,
      ETag: etag,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (options.devHandler?.(req, res)) return;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
        res.end('Method Not Allowed');
        return;
      }
      const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (pathname === `${BASE}runtime-config.js`) {
        if (matchesEtag(req.headers['if-none-match'], configEtag)) {
          res.writeHead(304, { ...headers, 'Cache-Control': REVALIDATE, ETag: configEtag });
          res.end();
          return;
        }
        send(res, req, 200, 'text/javascript; charset=utf-8', configScript, REVALIDATE, configEtag);
        return;
      }
      // The login route with nothing pending: straight to the authorization endpoint (authorize-redirect.ts).
      if (redirectsToAuthorization(config, req)) {
        const redirect = authorizationRedirect(config);
        res.writeHead(302, {
          ...headers,
          Location: redirect.location,
          'Set-Cookie': redirect.setCookies,
          'Cache-Control': 'no-store',
          'Content-Length': 0,
        });
        res.end();
        return;
      }
      // The login route's page, with the Email step in it (login-page.ts).
      if (login && isLoginPage(req)) {
        const page = login.pick(req);
        if (matchesEtag(req.headers['if-none-match'], page.etag)) {
          res.writeHead(304, {
            ...loginHeaders,
            'Cache-Control': REVALIDATE,
            ETag: page.etag,
            Vary: LOGIN_PAGE_VARY,
          });
          res.end();
          return;
        }
        res.writeHead(200, {
          ...loginHeaders,
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Length': page.body.length,
          'Cache-Control': REVALIDATE,
          ETag: page.etag,
          Vary: LOGIN_PAGE_VARY,
          ...(page.encoding ? { 'Content-Encoding': page.encoding } : {}),
        });
        res.end(req.method === 'HEAD' ? undefined : page.body);
        return;
      }
      // The build's files, compressed and validated, and the SPA page (static-files.ts).
      for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
      files.handle(req, res);
    })().catch((err: unknown) => {
      options.telemetry?.logger?.error({ err }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end('Internal Server Error');
    });
  };
  const server = createServer(
    options.telemetry ? instrumentHandler(options.telemetry, options.application, handler) : handler,
  );

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `http://localhost:${port}`,
    config,
    close: () =>
      new Promise<void>((resolvePromise, reject) => {
        // Requests in flight finish (SIGTERM drain); idle keep-alive connections close now, and
        // the others as soon as their response is written.
        server.keepAliveTimeout = 1;
        server.close((err) => (err ? reject(err) : resolvePromise()));
        server.closeIdleConnections();
      }).then(() => files.close()),
  };
}

async function newestMtime(path: string): Promise<number> {
  let s;
  try {
    s = await stat(path);
  } catch {
    return 0;
  }
  if (!s.isDirectory()) return s.mtimeMs;
  let newest = s.mtimeMs;
  for (const entry of await readdir(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, await newestMtime(join(path, entry)));
  }
  return newest;
}

/** True when dist is missing or older than any source of the build. */
export async function isBuildStale(distDir = defaultDistDir): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(join(distDir, 'index.html'))).mtimeMs;
    // A build from before precompression (vite.config.ts) has no .br beside its files.
    await stat(join(distDir, 'index.html.br'));
  } catch {
    return true;
  }
  const sources = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(appDir, p));
  const newest = Math.max(...(await Promise.all(sources.map(newestMtime))));
  return newest > built;
}

let building: Promise<string> | null = null;

/**
 * Runs `vite build` programmatically when dist is missing or older than the sources (used by
 * npm start and e2e). Resolves to the dist directory to pass to serveApp.
 */
/** `vite build` of the account app in its own Node process (production mode). */
function runViteBuild(): Promise<void> {
  const vite = join(appDir, '..', '..', 'node_modules', 'vite', 'bin', 'vite.js');
  return new Promise((resolveBuild, reject) => {
    const child = spawn(process.execPath, [vite, 'build', '--logLevel', 'warn', '--mode', 'production'], {
      cwd: appDir,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolveBuild() : reject(new Error(`vite build exited with ${code ?? 'a signal'}`)),
    );
  });
}

export function buildApp(options: { force?: boolean } = {}): Promise<string> {
  building ??= (async () => {
    try {
      if (options.force || (await isBuildStale())) {
        // In a child process: a build holds hundreds of megabytes that a long-running server
        // would otherwise keep as resident memory. Always a production build: under a test runner
        // NODE_ENV is "test", which would otherwise ship React's development build.
        await runViteBuild();
      }
      return defaultDistDir;
    } finally {
      building = null;
    }
  })();
  return building;
}
