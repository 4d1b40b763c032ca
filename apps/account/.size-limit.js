// The login route's initial JavaScript (budget: ≤ 130 KB gzip): the entry chunk and every
// chunk it imports statically, read from Vite's manifest so hashed and split chunk names need no globs.
// Lazy routes (dynamicImports) are not counted. Run `npx vite build` first (npm run size does).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const manifestPath = join(here, 'dist/.vite/manifest.json');
if (!existsSync(manifestPath)) {
  throw new Error('apps/account/dist is missing: run `npx vite build` in apps/account first');
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));

function initialChunks() {
  // The app's entry (index.html), not the Microsoft redirect bridge page (redirect.html).
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry && key === 'index.html');
  const seen = new Set();
  const files = [];
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) return;
    if (chunk.file.endsWith('.js')) files.push(`dist/${chunk.file}`);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(entryKey);
  return files;
}

export default [
  {
    name: 'login route initial JS (entry + static imports)',
    path: initialChunks(),
    limit: '130 KB',
    gzip: true,
  },
];
