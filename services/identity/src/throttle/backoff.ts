export interface LockoutPolicy {
  /** Failures allowed before any wait. */
  threshold: number;
  baseMs: number;
  maxMs: number;
  /** At this many consecutive failures the account is locked until reset (recovery or admin). */
  hardLimit: number;
}

/**
 * Wait imposed after `failures` consecutive failures: 0 below the threshold, then
 * base, 2×base, 4×base… capped at max; Infinity once the hard limit is reached.
 */
export function lockoutDelayMs(failures: number, p: LockoutPolicy): number {
  if (failures >= p.hardLimit) return Number.POSITIVE_INFINITY;
  if (failures < p.threshold) return 0;
  const exp = failures - p.threshold;
  if (exp >= 30) return p.maxMs;
  return Math.min(p.baseMs * 2 ** exp, p.maxMs);
}

/** Normalised key for per-account counters (unknown identifiers get one too). */
export function normalizeIdentifier(identifier: string): string {
  return identifier.trim().toLowerCase().normalize('NFKC');
}
