/**
 * The import graph of one source tree (a service's or the app's `src/`), by file and by folder.
 * Only relative imports count: packages are their own trees. Tests are left out (nothing imports
 * them). Used by the `acme/no-import-cycles` lint rule and by `node lint/import-graph.js`, which
 * prints each tree's cycles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The source trees whose files and folders must form one-way graphs. */
export const trees = [
  'services/identity/src',
  'services/oauth2/src',
  'services/users/src',
  'services/agent/src',
  'apps/account/src',
  'apps/account/server',
];

const SOURCE = /\.tsx?$/;
const TEST = /\.test\.tsx?$|\.d\.ts$/;

/**
 * Relative module specifiers one file imports: static imports, re-exports, side-effect and dynamic
 * imports, and with `types` type-only imports too.
 */
export function importsOf(text, fileName = 'file.tsx', types = false) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const found = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && (types || !typeOnlyImport(node.importClause)))
      found.push(node.moduleSpecifier.text);
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && (types || !node.isTypeOnly))
      found.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((name) => name.startsWith('./') || name.startsWith('../'));
}

function typeOnlyImport(clause) {
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    !clause.name &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !TEST.test(entry.name) ? [path] : [];
  });
}

/**
 * The folder a file belongs to: its first directory below the tree's root, or, for a file at the
 * root, the file itself (root modules such as config.ts are nodes of their own).
 */
export function folderOf(root, file) {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? `${parts[0]}/` : parts[0];
}

/** The files of the tree `file` imports (`text` is its source). */
export function targetsOf(root, file, text, types) {
  return new Set(
    importsOf(text, file, types)
      .map((spec) => resolve(dirname(file), spec))
      .filter((target) => target.startsWith(root + sep)),
  );
}

/**
 * File → the files of the same tree it imports: with `types`, every import (a file-level cycle is
 * one even through types); without, run-time imports only (what the folder graph is made of).
 */
export function fileGraph(root, types) {
  const graph = new Map();
  for (const file of sourceFiles(root))
    graph.set(file, targetsOf(root, file, readFileSync(file, 'utf8'), types));
  return graph;
}

/** Whether a path is a source file of the graphs (not a test). */
export const isGraphed = (file) => SOURCE.test(file) && !TEST.test(file);

/** Folder → the folders its files import. */
export function folderGraph(root, files) {
  const graph = new Map();
  for (const [file, targets] of files) {
    const from = folderOf(root, file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of targets) {
      const to = folderOf(root, target);
      if (to !== from) graph.get(from).add(to);
    }
  }
  return graph;
}

/** Whether `to` reaches `from` in the graph (so an edge from → to closes a cycle), with the path. */
export function pathBack(graph, from, to) {
  const seen = new Set([to]);
  const queue = [[to]];
  while (queue.length > 0) {
    const path = queue.shift();
    const node = path[path.length - 1];
    if (node === from) return path;
    for (const next of graph.get(node) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push([...path, next]);
      }
    }
  }
  return undefined;
}

/** The strongly connected components of more than one node (Tarjan), each sorted. */
export function cycles(graph) {
  let index = 0;
  const stack = [];
  const info = new Map();
  const found = [];
  const visit = (node) => {
    info.set(node, { index, low: index, onStack: true });
    index += 1;
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!info.has(next)) {
        visit(next);
        info.get(node).low = Math.min(info.get(node).low, info.get(next).low);
      } else if (info.get(next).onStack) {
        info.get(node).low = Math.min(info.get(node).low, info.get(next).index);
      }
    }
    if (info.get(node).low === info.get(node).index) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        info.get(member).onStack = false;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!info.has(node)) visit(node);
  return found;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const repo = resolve(import.meta.dirname, '..');
  for (const tree of trees) {
    const root = join(repo, tree);
    const folders = folderGraph(root, fileGraph(root, false));
    const files = fileGraph(root, true);
    const show = (component) =>
      component.map((n) => (n.startsWith(root) ? relative(root, n) : n)).join(' ↔ ');
    console.log(`${tree}: ${folders.size} folders`);
    for (const c of cycles(folders)) console.log(`  folder cycle (${c.length}): ${show(c)}`);
    for (const c of cycles(files)) console.log(`  file cycle (${c.length}): ${show(c)}`);
  }
}
