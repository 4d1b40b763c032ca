// Run by the Containerfile's build stage: copies what one image needs at run time into a new tree,
// and nothing else. `node docker/runtime-tree.mjs <out> <workspace>…` (e.g. `services/identity`).
//
// - Of each workspace: its package.json, its compiled output (`dist/`, and the account app's
//   `server/dist/`) and its top-level `.mjs` files (the service kit's thread-pool preload). Never its
//   sources, tests or the stand-ins unless named.
// - Of node_modules: the packages the compiled files import, and the production dependencies of
//   those (their `dependencies`, installed optional and peer dependencies), resolved the way Node
//   resolves them, from package-lock.json. Workspace packages they import come along the same way.
//   Type declarations, source maps, read-me files and the builds only bundlers read are left out.
// Plain JavaScript: it runs before anything is compiled.
import { builtinModules } from 'node:module';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const args = process.argv.slice(2);
const [out, ...workspaces] = args.filter((a) => !a.startsWith('--without='));
// `--without=dev`: a workspace never shipped, although a compiled file imports it (the account
// server's development-only Teams host is imported only when a development setting asks for it).
const without = new Set(args.filter((a) => a.startsWith('--without=')).map((a) => a.slice(10)));
if (!out || workspaces.length === 0) {
  console.error('usage: node docker/runtime-tree.mjs <out> <workspace>… [--without=<workspace>]');
  process.exit(64);
}
const root = process.cwd();
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages;
const builtins = new Set(builtinModules);
const COMPILED = ['dist', 'server/dist'];
const LEFT_OUT = /(\.d\.[cm]?ts|\.[cm]?tsx?|\.map|\.md|\.markdown)$/i;

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or undefined. */
function packageOf(specifier) {
  if (!/^(@[\w.-]+\/)?[\w.-]+(\/.*)?$/.test(specifier) || specifier.startsWith('.')) return;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  return builtins.has(name) ? undefined : name;
}

/** The packages the compiled JavaScript of a workspace imports. */
function importsOf(workspace) {
  const found = new Set();
  const pattern = /\bfrom\s*["']([^"']+)["']|\bimport\s*\(?\s*["']([^"']+)["']/g;
  // The Node code: the account app's server (its `dist/` is the browser's, already bundled), or `dist/`.
  const server = join(root, workspace, 'server', 'dist');
  const dir = existsSync(server) ? server : join(root, workspace, 'dist');
  if (existsSync(dir)) {
    for (const file of files(dir).filter((f) => /\.[cm]?js$/.test(f))) {
      for (const m of readFileSync(file, 'utf8').matchAll(pattern)) {
        const name = packageOf(m[1] ?? m[2]);
        if (name) found.add(name);
      }
    }
  }
  return found;
}

/** The lockfile key `name` resolves to from the package at key `from`, as Node would find it. */
function resolve(from, name) {
  let at = from;
  for (;;) {
    const key = at ? `${at}/node_modules/${name}` : `node_modules/${name}`;
    if (lock[key]) return key;
    if (!at) return;
    const cut = at.lastIndexOf('/node_modules/');
    at = cut >= 0 ? at.slice(0, cut) : '';
  }
}

const keep = new Set();
const shipped = new Set();
const queue = [];
function need(from, name, optional) {
  const key = resolve(from, name);
  if (!key) {
    if (optional) return;
    throw new Error(`${name} (needed by ${from || 'the root'}) is not in package-lock.json`);
  }
  if (keep.has(key)) return;
  keep.add(key);
  queue.push(key);
}
function shipWorkspace(workspace) {
  if (shipped.has(workspace)) return;
  shipped.add(workspace);
  for (const name of importsOf(workspace)) need(workspace, name, false);
}

for (const w of workspaces) shipWorkspace(w);
while (queue.length > 0) {
  const key = queue.shift();
  const entry = lock[key];
  if (entry.link) {
    if (!without.has(entry.resolved)) shipWorkspace(entry.resolved);
    continue;
  }
  if (!existsSync(join(root, key))) continue; // an optional package for another platform
  for (const name of Object.keys(entry.dependencies ?? {})) need(key, name, false);
  for (const name of Object.keys(entry.optionalDependencies ?? {})) need(key, name, true);
  for (const name of Object.keys(entry.peerDependencies ?? {})) need(key, name, true);
}

/**
 * The directories of a package that only bundlers read: with no `exports` map, Node loads `main`,
 * and a `module` or `esnext` build in another directory (the OpenTelemetry packages ship three
 * copies of themselves: build/src, build/esm, build/esnext) is never loaded.
 */
function bundlerOnly(dir) {
  const pkg = join(dir, 'package.json');
  if (!existsSync(pkg)) return [];
  const { main, module, esnext, exports } = JSON.parse(readFileSync(pkg, 'utf8'));
  if (exports || typeof main !== 'string') return [];
  const top = (file) => file.replace(/^\.\//, '').split('/').slice(0, -1).join('/');
  return [module, esnext]
    .filter((f) => typeof f === 'string' && top(f) && top(f) !== top(main) && !top(main).startsWith(top(f)))
    .map((f) => join(dir, top(f)));
}
const copy = (from, to) => {
  const skipped = bundlerOnly(from);
  cpSync(from, to, {
    recursive: true,
    filter: (src) =>
      !LEFT_OUT.test(src) &&
      !relative(from, src).split('/').includes('node_modules') &&
      !skipped.some((d) => src === d || src.startsWith(`${d}/`)),
  });
};
mkdirSync(out, { recursive: true });
cpSync(join(root, 'package.json'), join(out, 'package.json'));
for (const w of shipped) {
  mkdirSync(join(out, w), { recursive: true });
  cpSync(join(root, w, 'package.json'), join(out, w, 'package.json'));
  for (const sub of COMPILED) if (existsSync(join(root, w, sub))) copy(join(root, w, sub), join(out, w, sub));
  for (const f of readdirSync(join(root, w)).filter((f) => f.endsWith('.mjs')))
    cpSync(join(root, w, f), join(out, w, f));
}
let count = 0;
for (const key of keep) {
  const entry = lock[key];
  const target = join(out, key);
  if (entry.link && without.has(entry.resolved)) continue;
  if (entry.link) {
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(relative(dirname(target), join(out, entry.resolved)), target);
  } else if (existsSync(join(root, key)) && statSync(join(root, key)).isDirectory()) {
    copy(join(root, key), target);
    count++;
  }
}
process.stdout.write(
  `${out}: ${shipped.size} workspace(s) (${[...shipped].join(', ')}), ${count} package(s)\n`,
);
