import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';

/** Backup codes per set (Kratos: 12). */
export const LOOKUP_CODE_COUNT = 12;
/** Characters per code (Kratos: 8 lowercase alphanumerics, 36^8 ≈ 2.8·10^12 values). */
const CODE_LENGTH = 8;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** One stored backup code: its HMAC and when it was used (null while unused). */
interface StoredCode {
  hash: string;
  used_at: string | null;
}

/** The `lookup_secret` credential's config. No code is ever stored in plain text. */
export interface LookupConfig {
  codes: StoredCode[];
}

/** A new set of codes (cryptographically random). */
export function newCodes(): string[] {
  return Array.from({ length: LOOKUP_CODE_COUNT }, () =>
    Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''),
  );
}

/** What a person typed, as a code: lower case, spaces and dashes dropped; null when it cannot be one. */
export function normalizeCode(input: unknown): string | null {
  if (typeof input !== 'string' || input.length > 64) return null;
  const code = input.toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z0-9]{8}$/.test(code) ? code : null;
}

/**
 * A code's stored form: HMAC-SHA-256 under the server's code secret, bound to its identity (a hash
 * copied to another account matches nothing). The codes are random with 41 bits each and guesses are
 * bounded by the attempt limits, so a fast keyed hash suffices.
 */
export function hashCode(secret: string, identityId: string, code: string): string {
  return createHmac('sha256', secret).update(`lookup_secret:${identityId}:${code}`).digest('hex');
}

/** New codes are stored under the first listed code secret. */
export const storingSecret = (secrets: readonly string[]) => secrets[0]!;

export function readConfig(config: unknown): LookupConfig {
  const codes = (config as { codes?: unknown })?.codes;
  if (!Array.isArray(codes)) return { codes: [] };
  return {
    codes: codes.filter(
      (c): c is StoredCode =>
        typeof c === 'object' && c !== null && typeof (c as StoredCode).hash === 'string',
    ),
  };
}

/**
 * The index of the stored code `code` matches (compared in constant time, every entry, under every
 * listed code secret: codes made before a rotation still match while their secret is listed), or -1.
 */
export function findCode(
  config: LookupConfig,
  secrets: readonly string[],
  identityId: string,
  code: string,
): number {
  let found = -1;
  for (const secret of secrets) {
    const want = Buffer.from(hashCode(secret, identityId, code), 'hex');
    config.codes.forEach((c, i) => {
      const have = Buffer.from(c.hash, 'hex');
      if (have.length === want.length && timingSafeEqual(have, want) && found < 0) found = i;
    });
  }
  return found;
}

export const remainingCodes = (config: LookupConfig) => config.codes.filter((c) => !c.used_at).length;
