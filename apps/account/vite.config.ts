import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// One build for every application; which one it is comes from /account/runtime-config.js at run time.
export default defineConfig({
  root: import.meta.dirname,
  base: '/account/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    target: 'es2022',
    sourcemap: false,
  },
});
