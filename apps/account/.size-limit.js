// The login route as a browser receives it (budget: ≤ 110 KB): the page, the entry chunk, every
// chunk it imports statically and their stylesheets, counted as the `.br` files that serve.ts sends
// to a browser asking for `br` (written by vite.config.ts's precompress plugin), so the figure is
// the bytes on the wire, not a re-compression. The files come from Vite's manifest, so hashed and
// split chunk names need no globs. Lazy routes (dynamicImports) are not counted; nor is
// /account/runtime-config.js (generated per application at run time, about 0.7 KB).
// Run `npx vite build` first (npm test does).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const manifestPath = join(here, 'dist/.vite/manifest.json');
if (!existsSync(manifestPath)) {
  throw new Error('apps/account/dist is missing: run `npx vite build` in apps/account first');
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));

function loginRouteFiles() {
  // The app's entry (index.html), not the Microsoft redirect bridge page (redirect.html).
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry && key === 'index.html');
  const seen = new Set();
  const files = new Set(['dist/index.html']);
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) return;
    files.add(`dist/${chunk.file}`);
    for (const css of chunk.css ?? []) files.add(`dist/${css}`);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entryKey);
  // A file too small to gain from compression is sent as it is.
  return [...files].map((file) => (existsSync(join(here, `${file}.br`)) ? `${file}.br` : file));
}

export default [
  {
    name: 'login route as served with Accept-Encoding: br (page, entry, static imports, CSS)',
    path: loginRouteFiles(),
    limit: '110 KB',
    // The .br files are already the bytes sent: counted as they are, not compressed again.
    brotli: false,
  },
];
