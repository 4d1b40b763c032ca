import { readFileSync } from 'node:fs';
import type { UiText } from '@ory/client';
import { messages } from '../ui/messages.ts';

const MIN_PASSWORD_LENGTH = 8;
/** Bytes; longer input is refused outright (never truncated). */
export const MAX_PASSWORD_BYTES = 4096;
/**
 * The special characters, one of which a password must contain (space included). The app's
 * checklist (`apps/account/src/shared/password/password-rules.ts`) uses the same set, so a password
 * the app accepts is one the service accepts, whichever way it arrives (app, admin API, CLI; ADR 0014).
 */
const SPECIAL_CHARACTERS = ' `!@#$%^&*()_+-=[]{};\':"\\|,.<>/?~';

let common: Set<string> | undefined;
function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8')
      .split('\n')
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean),
  );
  return common;
}

/**
 * Server-side password policy (ADR 0014: one rule for every way a password arrives): at least 8 characters,
 * not in the common-password list, at least one digit and one special character, not the
 * identifier. Returns the Kratos message for the `password` node, or null.
 * Length counts Unicode code points, like Kratos (`utf8.RuneCountInString`).
 */
export function checkPasswordPolicy(password: string, identifier?: string): UiText | null {
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) {
    return messages.passwordTooLong(MAX_PASSWORD_BYTES);
  }
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return messages.passwordTooShort(MIN_PASSWORD_LENGTH, length);
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) return messages.passwordBreached();
  if (identifier) {
    const id = identifier.toLowerCase();
    const local = id.split('@')[0] ?? id;
    if (lower === id || (local.length >= 4 && lower.includes(local) && lower.length - local.length < 4)) {
      return messages.passwordTooSimilar();
    }
  }
  if (!/[0-9]/.test(password)) return messages.passwordNoNumber();
  if (![...password].some((c) => SPECIAL_CHARACTERS.includes(c))) {
    return messages.passwordNoSpecial();
  }
  return null;
}
