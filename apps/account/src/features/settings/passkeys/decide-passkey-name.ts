import { copy } from '../../../copy.ts';

/** A passkey's name as typed: trimmed, 1–64 characters (the identity service's rule), else why not. */
export function decidePasskeyName(input: string): { name: string } | { error: string } {
  const name = input.trim();
  if (!name) return { error: copy.passkeys.nameRequired };
  if (name.length > 64) return { error: copy.passkeys.nameTooLong };
  return { name };
}
