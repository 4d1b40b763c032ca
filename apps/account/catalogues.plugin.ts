import { compileMessage } from '@lingui/message-utils/compileMessage';
import type { Plugin } from 'vite';

/** A catalogue module: `src/**\/i18n/<area>.<locale>.ts` (see src/i18n/catalogue.ts). */
const CATALOGUE = /\/i18n\/[\w-]+\.[a-z]{2}\.ts$/;

function compileNode(node: unknown): unknown {
  if (typeof node === 'string') return { __icu: compileMessage(node) };
  if (Array.isArray(node)) {
    const [message, ...args] = node as string[];
    return { __icu: compileMessage(message ?? ''), args };
  }
  return Object.fromEntries(Object.entries(node as object).map(([key, value]) => [key, compileNode(value)]));
}

/**
 * `vite build` (and the login page's pre-render): every catalogue's messages are compiled here, so
 * the browser gets Lingui's compiled form and never the ICU parser. A catalogue module holds data
 * only (type imports aside), so once its types are stripped it is evaluated as it is.
 */
export function compileCatalogues(): Plugin {
  return {
    name: 'account-compile-catalogues',
    enforce: 'post',
    async transform(code, id) {
      if (!CATALOGUE.test(id.split('?')[0] ?? '')) return null;
      const source = `data:text/javascript;base64,${Buffer.from(code).toString('base64')}`;
      const module = (await import(source)) as Record<string, unknown>;
      const compiled = Object.entries(module).map(
        // As JSON text: the browser parses a large JSON text faster than the same object literal.
        ([name, catalogue]) =>
          `export const ${name} = JSON.parse(${JSON.stringify(JSON.stringify(compileNode(catalogue)))});`,
      );
      return { code: compiled.join('\n'), map: null };
    },
  };
}
