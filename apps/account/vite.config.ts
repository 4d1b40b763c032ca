import { defineConfig } from 'vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';
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

// One build for every application; which one it is comes from /account/runtime-config.js at run time.
export default defineConfig({
  root: import.meta.dirname,
  base: '/account/',
  plugins: [react(), devRuntimeConfig()],
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
