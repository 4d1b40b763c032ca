import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { createServer, defineConfig } from 'vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compileCatalogues } from './catalogues.plugin.ts';
import { LOCALES, type Locale } from '@acme/i18n';
import { loginRootFile } from './server/login-page.ts';
import { resolveConfig, runtimeConfigScript } from './server/serve.ts';

/** `vite` (dev server) only: serve the runtime configuration that serveApp serves in production. */
function devRuntimeConfig(): Plugin {
  return {
    name: 'account-dev-runtime-config',
    apply: 'serve',
    configureServer(server) {
      const application = process.env.ACCOUNT_APPLICATION === 'magic' ? 'magic' : 'platform';
      const script = runtimeConfigScript(resolveConfig(application));
      server.middlewares.use('/account/runtime-config.js', (_req, res) => {
        res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
        res.setHeader('Cache-Control', 'no-store');
        res.end(script);
      });
    },
  };
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
/** Formats that compress (images and fonts such as PNG or WOFF2 are compressed already). */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|map|ico|wasm)$/;

/**
 * `vite build` only: writes a `.br` (quality 11) and a `.gz` (level 9) beside every file of the
 * build, which serve.ts sends by Accept-Encoding. A variant that is not smaller than the file is
 * left out (a few tiny chunks), and the file itself is sent.
 */
function precompress(): Plugin {
  return {
    name: 'account-precompress',
    apply: 'build',
    async writeBundle(options, bundle) {
      const outDir = options.dir ?? join(import.meta.dirname, 'dist');
      const files = Object.keys(bundle).filter((name) => COMPRESSIBLE.test(name) && !name.startsWith('.'));
      await Promise.all(
        files.map(async (name) => {
          const path = join(outDir, name);
          const body = await readFile(path);
          const variants = await Promise.all([
            brotli(body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
                [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
              },
            }).then((bytes) => ['.br', bytes] as const),
            gzipped(body, { level: constants.Z_BEST_COMPRESSION }).then((bytes) => ['.gz', bytes] as const),
          ]);
          for (const [suffix, bytes] of variants)
            if (bytes.length < body.length) await writeFile(path + suffix, bytes);
        }),
      );
    },
  };
}

/**
 * `vite build` only: renders the Email step (src/prerender/login-page.tsx) with React's server
 * renderer, once per locale, into dist/.vite/login-root.<locale>.html, which the account app server
 * puts in the login route's page (server/login-page.ts), so the Welcome card paints before the app
 * has loaded, in the reader's language. The catalogues are loaded here, at build time: no locale's
 * texts enter the login route's bundle this way.
 */
function prerenderLogin(): Plugin {
  return {
    name: 'account-prerender-login',
    apply: 'build',
    async closeBundle() {
      const server = await createServer({
        root: import.meta.dirname,
        configFile: false,
        logLevel: 'warn',
        plugins: [react(), compileCatalogues()],
        server: { middlewareMode: true, hmr: false, watch: null },
        appType: 'custom',
      });
      try {
        const page = (await server.ssrLoadModule('/src/prerender/login-page.tsx')) as {
          renderLoginRoot: (locale: Locale) => Promise<string>;
        };
        for (const locale of LOCALES) {
          const file = join(import.meta.dirname, 'dist', loginRootFile(locale));
          await mkdir(join(file, '..'), { recursive: true });
          await writeFile(file, await page.renderLoginRoot(locale));
        }
      } finally {
        await server.close();
      }
    },
  };
}

// One build for every application; which one it is comes from /account/runtime-config.js at run time.
export default defineConfig({
  root: import.meta.dirname,
  base: '/account/',
  plugins: [react(), compileCatalogues(), devRuntimeConfig(), precompress(), prerenderLogin()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
    // Two pages: the app, and the bridge page Microsoft's sign-in responses land on (MSAL's redirect URI).
    rollupOptions: {
      input: {
        index: `${import.meta.dirname}/index.html`,
        redirect: `${import.meta.dirname}/redirect.html`,
      },
    },
  },
});
