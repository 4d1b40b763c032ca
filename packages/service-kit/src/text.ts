/**
 * Text no service accepts: NUL (PostgreSQL refuses it in `text` and `jsonb`, so a NUL that
 * reached a query would be a 500) and lone UTF-16 surrogates (UTF-8 cannot carry them: they
 * would be stored as U+FFFD, a different value from the one checked). Every service refuses
 * requests carrying them with a 400 in its own error shape, before any handler runs.
 */

/** NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- NUL is what this looks for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `s` is free of NUL and lone surrogates. */
export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

const MAX_DEPTH = 64;

/**
 * Whether any string in `value` (object keys included, arrays and objects walked to a depth of
 * 64) contains NUL or a lone surrogate.
 */
export function containsUnstorableText(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.some((v) => containsUnstorableText(v, depth + 1));
  for (const [k, v] of Object.entries(value)) {
    if (!isStorableText(k) || containsUnstorableText(v, depth + 1)) return true;
  }
  return false;
}

/** The message every service gives (in its own error shape). */
export const UNSTORABLE_TEXT_MESSAGE =
  'The request contains a NUL character or an invalid Unicode sequence (a lone surrogate).';
