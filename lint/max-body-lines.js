/**
 * Lint rule `acme/max-body-lines`: in the app's `.tsx` files, a component (a function named in
 * PascalCase) stays within `component` lines and a hook (a function named `useX`) within `hook`
 * lines, counted like `max-lines-per-function` without blank and comment-only lines. A longer body
 * is split by concern (a data hook, a list, a dialog) or its decisions move into pure
 * `select-*`/`decide-*` functions.
 */

/** The name a function is known by: its own, or the variable it is assigned to. */
function nameOf(node) {
  if (node.id?.name) return node.id.name;
  const parent = node.parent;
  if (parent?.type === 'VariableDeclarator' && parent.id.type === 'Identifier') return parent.id.name;
  // `const X = memo(function …)` / `forwardRef((…) => …)`
  if (parent?.type === 'CallExpression' && parent.parent?.type === 'VariableDeclarator')
    return parent.parent.id.name;
  return undefined;
}

const kindOf = (name) =>
  name === undefined
    ? undefined
    : /^use[A-Z0-9]/.test(name)
      ? 'hook'
      : /^[A-Z]/.test(name)
        ? 'component'
        : undefined;

export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'Keep components and hooks in .tsx files short.' },
    schema: [
      {
        type: 'object',
        properties: { component: { type: 'integer' }, hook: { type: 'integer' } },
        additionalProperties: false,
      },
    ],
    messages: {
      long: "{{kind}} '{{name}}' has {{lines}} lines (at most {{max}}): split it by concern, or move its decisions into pure select-*/decide-* functions.",
    },
  },
  create(context) {
    const { component = 120, hook = 80 } = context.options[0] ?? {};
    const source = context.sourceCode;
    // Lines that hold only (part of) a comment.
    const commentOnly = new Set();
    for (const comment of source.getAllComments()) {
      for (let line = comment.loc.start.line; line <= comment.loc.end.line; line++) {
        const text = source.lines[line - 1];
        const before = line === comment.loc.start.line ? text.slice(0, comment.loc.start.column) : '';
        const after = line === comment.loc.end.line ? text.slice(comment.loc.end.column) : '';
        if (before.trim() === '' && after.trim() === '') commentOnly.add(line);
      }
    }
    function check(node) {
      const name = nameOf(node);
      const kind = kindOf(name);
      if (!kind) return;
      let lines = 0;
      for (let line = node.loc.start.line; line <= node.loc.end.line; line++) {
        if (source.lines[line - 1].trim() !== '' && !commentOnly.has(line)) lines++;
      }
      const max = kind === 'hook' ? hook : component;
      if (lines > max)
        context.report({
          node,
          messageId: 'long',
          data: { kind: kind === 'hook' ? 'Hook' : 'Component', name, lines, max },
        });
    }
    return { FunctionDeclaration: check, FunctionExpression: check, ArrowFunctionExpression: check };
  },
};
