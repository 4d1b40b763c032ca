export interface LockoutPolicy {
  /** Failures allowed before any wait. */
  threshold: number;
  baseMs: number;
  maxMs: number;
  /** A quiet period after which the failure count starts again from zero. */
  resetAfterMs: number;
}

/**
 * Wait imposed after `failures` consecutive failures: 0 below the threshold, then base, 2×base,
 * 4×base… capped at max. Every lockout ends: there is no permanent lock an attacker could use to
 * keep a user out; an operator can also end one early (`npm run admin -- account:unlock`).
 */
export function lockoutDelayMs(failures: number, p: LockoutPolicy): number {
  if (failures < p.threshold) return 0;
  const exp = failures - p.threshold;
  if (exp >= 30) return p.maxMs;
  return Math.min(p.baseMs * 2 ** exp, p.maxMs);
}

/** Normalised key for per-account counters (unknown identifiers get one too). */
export function normalizeIdentifier(identifier: string): string {
  return identifier.trim().toLowerCase().normalize('NFKC');
}
