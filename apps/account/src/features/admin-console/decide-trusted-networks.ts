import { LOCKOUT_CONFIRMATION_REQUIRED } from '@acme/users-contract/networks';
import { consoleCopy as t } from './copy.ts';

// The trusted networks form, pure: what it sends (the ranges as typed, one per line or separated
// by commas or spaces), and what a refused save means. The user service checks the ranges again.

/** The user service's default `TRUSTED_NETWORKS_MAX_RANGES`. */
const MAX_RANGES = 100;
const RANGE = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/;

export type TrustedNetworksFormDecision = { ok: true; ranges: string[] } | { ok: false; error: string };

export function decideTrustedNetworksForm(text: string): TrustedNetworksFormDecision {
  const ranges = [...new Set(text.split(/[\s,]+/).filter((r) => r.length > 0))];
  if (ranges.length > MAX_RANGES) return { ok: false, error: t.networks.tooMany(MAX_RANGES) };
  const bad = ranges.find((r) => r.length > 64 || !RANGE.test(r) || !/[.:]/.test(r));
  if (bad !== undefined) return { ok: false, error: t.networks.badRange(bad) };
  return { ok: true, ranges };
}

export type SaveFailure = { type: 'confirm'; address: string } | { type: 'error'; message: string };

/** A refused save: the lock-out confirmation the server asks for, or a message to show. */
export function decideSaveFailure(failure: {
  status: number | null;
  body: unknown;
  message: string;
}): SaveFailure {
  const body = (failure.body ?? {}) as { errorCode?: unknown; yourAddress?: unknown };
  if (failure.status === 409 && body.errorCode === LOCKOUT_CONFIRMATION_REQUIRED) {
    return { type: 'confirm', address: typeof body.yourAddress === 'string' ? body.yourAddress : '' };
  }
  return { type: 'error', message: failure.message };
}
