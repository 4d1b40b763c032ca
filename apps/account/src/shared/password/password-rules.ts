import { MIN_PASSWORD_LENGTH } from '../../constants.ts';

// Password: at least 8 characters, one digit, one special character from the listed set.

export const SPECIAL_CHARACTERS = ' `!@#$%^&*()_+-=[]{};\':"\\|,.<>/?~';

export interface PasswordChecks {
  length: boolean;
  digit: boolean;
  special: boolean;
}

export function checkPassword(password: string): PasswordChecks {
  return {
    length: [...password].length >= MIN_PASSWORD_LENGTH,
    digit: /[0-9]/.test(password),
    special: [...password].some((c) => SPECIAL_CHARACTERS.includes(c)),
  };
}

/** Continue is enabled only when every rule holds and the confirmation equals the password. */
export function canSubmitPassword(password: string, confirmation: string): boolean {
  const c = checkPassword(password);
  return c.length && c.digit && c.special && confirmation !== '' && confirmation === password;
}
