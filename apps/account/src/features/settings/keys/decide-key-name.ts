import { copy } from '../../../copy.ts';
import type { KeyCopy } from './select-keys.ts';

/**
 * A passkey's or security key's name as typed: trimmed, 1–64 characters (the identity service's
 * rule), else why not (a missing name in the words of that kind of key, `text`).
 */
export function decideKeyName(
  input: string,
  text: Pick<KeyCopy, 'nameRequired'>,
): { name: string } | { error: string } {
  const name = input.trim();
  if (!name) return { error: text.nameRequired };
  if (name.length > 64) return { error: copy.keys.nameTooLong };
  return { name };
}
