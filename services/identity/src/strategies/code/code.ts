import { createHash, randomInt } from 'node:crypto';
import { safeEqual } from '../../sessions/tokens.ts';

/** At most this many code submissions per flow. */
export const MAX_CODE_SUBMISSIONS = 5;

/** A six-digit one-time code from the CSPRNG. */
export function newCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** Codes are stored only as a hash bound to their flow. */
export function hashCode(flowId: string, code: string): string {
  return createHash('sha256').update(`${flowId}:${code}`).digest('hex');
}

export function codeMatches(flowId: string, code: unknown, storedHash: unknown): boolean {
  if (typeof code !== 'string' || typeof storedHash !== 'string' || !/^[0-9]{6}$/.test(code.trim()))
    return false;
  return safeEqual(hashCode(flowId, code.trim()), storedHash);
}
