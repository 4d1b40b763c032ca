import { randomInt } from 'node:crypto';
import { codeMatchesHmac, hmacCode } from '../../throttle/code-guard.ts';

/** At most this many code submissions per flow (the engine's own cap; the code guard counts too). */
export const MAX_CODE_SUBMISSIONS = 5;

/** A six-digit one-time code from the CSPRNG. */
export function newCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** Codes are stored only as an HMAC under the server's code secret (the first listed), bound to their flow. */
export function hashCode(secrets: readonly string[], flowId: string, code: string): string {
  return hmacCode(secrets[0]!, flowId, code);
}

/** Constant-time check of a submitted code against the stored HMAC, under every listed secret. */
export function codeMatches(
  secrets: readonly string[],
  flowId: string,
  code: unknown,
  storedHash: unknown,
): boolean {
  return codeMatchesHmac(secrets, flowId, code, storedHash);
}
