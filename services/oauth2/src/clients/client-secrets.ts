import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import type { Clock } from '@acme/db/clock';
import type { RotatedSecret } from './client-document.ts';

/**
 * Client secrets: generated here (256 random bits, or one of at least 32 characters the operator
 * gives), answered once, and stored only as a SHA-256 hash (`sha256:<base64url>`). A fast hash is
 * enough for secrets this long: there is nothing to guess from it. A rotation keeps the previous
 * hash, accepted until its grace period ends.
 */

const HASH_PREFIX = 'sha256:';

export function hashSecret(secret: string): string {
  return HASH_PREFIX + createHash('sha256').update(secret, 'utf8').digest('base64url');
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Constant-time: whether `actual` is the secret whose hash is `stored`. */
export function secretMatches(stored: string, actual: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(hashSecret(actual));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Rotated secrets kept at most (Hydra keeps five). */
const MAX_ROTATED_SECRETS = 5;

/** The rotated-out secrets still in their grace period, with `previous` added first. */
export function keepRotated(
  rotated: RotatedSecret[],
  previous: string | undefined,
  now: Date,
  graceSeconds: number,
): RotatedSecret[] {
  const nowS = Math.floor(now.getTime() / 1000);
  const added = previous ? [{ hash: previous, expires_at: nowS + graceSeconds }] : [];
  return [...added, ...rotated.filter((r) => r.expires_at > nowS)].slice(0, MAX_ROTATED_SECRETS);
}

/**
 * Lets oidc-provider authenticate clients whose stored secret is a hash: the current secret, or a
 * rotated-out one whose grace period has not ended (read from the client at each request, so a
 * rotation on any instance holds at once).
 */
export function acceptHashedClientSecrets(provider: Provider, clock: Clock): void {
  type Self = { clientSecret?: string; rotated_secrets?: RotatedSecret[] };
  const proto = provider.Client.prototype as unknown as {
    compareClientSecret(this: Self, actual: string): boolean | Promise<boolean>;
  };
  const original = proto.compareClientSecret;
  proto.compareClientSecret = function compare(actual) {
    if (typeof this.clientSecret !== 'string' || !this.clientSecret.startsWith(HASH_PREFIX)) {
      return original.call(this, actual);
    }
    if (typeof actual !== 'string') return false;
    const nowS = Math.floor(clock.now().getTime() / 1000);
    const candidates = [
      this.clientSecret,
      ...(this.rotated_secrets ?? []).filter((r) => r.expires_at > nowS).map((r) => r.hash),
    ];
    // Every candidate is compared, so the time taken does not tell which one matched.
    return candidates.map((hash) => secretMatches(hash, actual)).some(Boolean);
  };
}
