// `npm run build` (and the first step of `npm start`, `npm run start:cluster` and the journeys):
// compiles every service, package, stand-in, the account app's server and these scripts from
// TypeScript to JavaScript, beside their sources (`<workspace>/dist/`, see below). Plain JavaScript,
// so that it runs before anything is compiled.
//
// Each file is transpiled on its own by esbuild (types are erased, nothing is bundled or
// type-checked: `tsc` checks types in `npm run typecheck` and `npm test`), and relative imports
// of `.ts` files become `.js`. Only what is stale is rebuilt: a source newer than its output, or an
// output without its source (removed). Production runs the output with `node --conditions=compiled`,
// the export condition under which every workspace package resolves to its `dist/` (ADR 0016).
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const isSource = (f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !/\.test\.tsx?$/.test(f);

/** Files under `dir` (recursively; `dist` and `node_modules` left out). */
function walk(dir, recursive = true) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive && entry.name !== 'dist' && entry.name !== 'node_modules') out.push(...walk(path));
    } else out.push(path);
  }
  return out;
}

/**
 * What is compiled, and where to: `base` is the directory the output mirrors, `out` where it goes.
 * A workspace's `src/x.ts` becomes `dist/x.js` (one level deep, like `src/`, so paths such as
 * `../package.json` still resolve). The account app's server takes the app's shared modules it
 * imports along (found by esbuild), under `server/dist/` (`dist/` is the Vite build's).
 */
async function units() {
  const list = [];
  for (const group of ['packages', 'services']) {
    for (const name of readdirSync(join(root, group))) {
      const src = join(root, group, name, 'src');
      if (existsSync(src)) list.push({ base: src, out: join(root, group, name, 'dist'), files: walk(src) });
    }
  }
  list.push({
    base: join(root, 'dev', 'src'),
    out: join(root, 'dev', 'dist'),
    files: walk(join(root, 'dev', 'src')),
  });
  list.push({
    base: join(root, 'scripts'),
    out: join(root, 'scripts', 'dist'),
    files: walk(join(root, 'scripts'), false).filter(isSource),
  });
  const app = join(root, 'apps', 'account');
  const server = walk(join(app, 'server'), false).filter(isSource);
  // The closure of the server's relative imports (packages stay imports).
  const { metafile } = await build({
    entryPoints: server,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    absWorkingDir: root,
    outdir: join(app, 'server', 'dist'),
    logLevel: 'error',
  });
  list.push({
    base: app,
    out: join(app, 'server', 'dist'),
    files: Object.keys(metafile.inputs).map((f) => join(root, f)),
  });
  return list;
}

const outputOf = (unit, file) =>
  join(unit.out, relative(unit.base, file)).replace(/\.ts$/, isSource(file) ? '.js' : '.ts');

// `from "./x.ts"`, `import "./x.ts"`, `import("./x.ts")` → `.js` (relative specifiers only).
const RELATIVE_TS = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*?)\.ts\2/g;

export async function buildAll({ quiet = false } = {}) {
  const started = Date.now();
  let compiled = 0;
  let removed = 0;
  for (const unit of await units()) {
    const sources = unit.files.filter((f) => isSource(f) || (!f.endsWith('.ts') && !f.endsWith('.tsx')));
    const expected = new Set(sources.map((f) => outputOf(unit, f)));
    // Outputs whose source is gone.
    if (existsSync(unit.out)) {
      for (const f of walk(unit.out)) {
        if (!expected.has(f)) {
          rmSync(f);
          removed++;
        }
      }
    }
    const stale = sources.filter((f) => {
      const out = outputOf(unit, f);
      return !existsSync(out) || statSync(out).mtimeMs < statSync(f).mtimeMs;
    });
    const ts = stale.filter(isSource);
    for (const f of stale.filter((f) => !isSource(f))) {
      mkdirSync(dirname(outputOf(unit, f)), { recursive: true });
      copyFileSync(f, outputOf(unit, f));
    }
    if (ts.length === 0) continue;
    const result = await build({
      entryPoints: ts,
      outbase: unit.base,
      outdir: unit.out,
      bundle: false,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      write: false,
      logLevel: 'error',
    });
    for (const file of result.outputFiles) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.text.replace(RELATIVE_TS, '$1$2$3.js$2'));
    }
    compiled += ts.length;
  }
  if (!quiet && (compiled > 0 || removed > 0)) {
    const took = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`Compiled ${compiled} file(s)${removed ? `, removed ${removed}` : ''} in ${took} s.`);
  }
  return { compiled, removed };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildAll();
}
