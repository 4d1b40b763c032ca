/**
 * Lint rule `acme/no-import-cycles`: the folders of each service's and the app's source tree form a
 * one-way graph, and so do its files. An import is refused when the imported file (or folder)
 * already reaches back to the importing one. Folders count run-time imports (a type describes a
 * shape, such as the context every folder is handed); files count every import.
 *
 * Option `knownFolderCycles`: per tree, the folders of a cycle that is still to be untangled. An
 * import between two of them is let through (it makes no new cycle); any other folder that joins
 * them is refused.
 *
 * The graphs are read from disk once per lint run (the linted file's own imports from its text), so
 * an editor's long-lived process sees other files' later changes only after a restart.
 */
import { join, relative, resolve, sep } from 'node:path';
import { fileGraph, folderGraph, folderOf, isGraphed, pathBack, targetsOf, trees } from './import-graph.js';

const repo = resolve(import.meta.dirname, '..');
/** The graphs of each tree as on disk, built once per lint run: `eslint .` lints them as they are. */
const onDisk = new Map();

function graphsOf(root) {
  if (!onDisk.has(root)) onDisk.set(root, { files: fileGraph(root, true), runtime: fileGraph(root, false) });
  return onDisk.get(root);
}

/** The graphs with the linted file's edges taken from its text (which may differ from the disk). */
function graphsWith(root, file, text) {
  const { files, runtime } = graphsOf(root);
  const withFile = (graph, types) => {
    const copy = new Map(graph);
    copy.set(file, targetsOf(root, file, text, types));
    return copy;
  };
  const withRuntime = withFile(runtime, false);
  return { files: withFile(files, true), runtime: withRuntime, folders: folderGraph(root, withRuntime) };
}

const show = (root, nodes) => nodes.map((n) => (n.startsWith(root) ? relative(root, n) : n)).join(' → ');

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse imports that close a cycle between folders or files of a source tree.' },
    schema: [
      {
        type: 'object',
        properties: { knownFolderCycles: { type: 'object', additionalProperties: { type: 'array' } } },
        additionalProperties: false,
      },
    ],
    messages: {
      folder:
        '{{from}} imports {{to}}, which already reaches back: {{path}}. Folders form a one-way graph (docs/architecture.md): move what both need below both.',
      file: 'This import closes a cycle of files: {{path}}. Move what both need into a module of its own.',
    },
  },
  create(context) {
    const file = resolve(context.filename);
    const tree = trees.find((t) => file.startsWith(join(repo, t) + sep));
    if (!tree || !isGraphed(file)) return {};
    const root = join(repo, tree);
    const known = new Set(context.options[0]?.knownFolderCycles?.[tree] ?? []);
    let graphs;
    const check = (node, spec, typeOnly) => {
      if (typeof spec !== 'string' || !(spec.startsWith('./') || spec.startsWith('../'))) return;
      const target = resolve(file, '..', spec);
      if (!target.startsWith(root + sep)) return;
      graphs ??= graphsWith(root, file, context.sourceCode.text);
      const back = pathBack(graphs.files, file, target);
      if (back) {
        context.report({ node, messageId: 'file', data: { path: show(root, [file, ...back]) } });
        return;
      }
      const from = folderOf(root, file);
      const to = folderOf(root, target);
      if (typeOnly || from === to || (known.has(from) && known.has(to))) return;
      const folderBack = pathBack(graphs.folders, from, to);
      if (folderBack)
        context.report({
          node,
          messageId: 'folder',
          data: { from, to, path: [from, ...folderBack].join(' → ') },
        });
    };
    const typeOnlyImport = (node) =>
      node.importKind === 'type' ||
      (node.specifiers.length > 0 &&
        node.specifiers.every((s) => s.type === 'ImportSpecifier' && s.importKind === 'type'));
    return {
      ImportDeclaration: (node) => check(node, node.source.value, typeOnlyImport(node)),
      ExportNamedDeclaration: (node) =>
        node.source && check(node, node.source.value, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
    };
  },
};
