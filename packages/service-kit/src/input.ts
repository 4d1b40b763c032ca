import { containsPrototypeKey, PROTOTYPE_KEY_MESSAGE } from './prototype.ts';
import { containsUnstorableText, UNSTORABLE_TEXT_MESSAGE } from './text.ts';

/**
 * What no service accepts in a request's body, query or path parameters: NUL or a lone surrogate
 * (text.ts) and a prototype key (prototype.ts). The message of the first problem found, or
 * undefined; each service refuses with a 400 in its own error shape, before any handler runs.
 */
export function refusedInput(...parts: unknown[]): string | undefined {
  if (parts.some((part) => containsUnstorableText(part))) return UNSTORABLE_TEXT_MESSAGE;
  if (parts.some((part) => containsPrototypeKey(part))) return PROTOTYPE_KEY_MESSAGE;
  return undefined;
}
