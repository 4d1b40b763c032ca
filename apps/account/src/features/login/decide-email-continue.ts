import type { PendingEmail } from '../../shared/storage/registry.ts';

// What becomes of an address the person continued with on the Email step, as a pure function; the
// login hook runs the answer (use-email-step.ts).
//
// Continue keeps the address first (per tab, `registry.pendingEmail`), then looks it up once the page
// stays. While a stored login challenge is still being checked, the page may yet leave for the
// authorization server (a stale challenge restarts the authorization): a lookup started then was
// lost with the page, and the page the authorization server sent back showed an empty Email step.
// Now the address waits for the check, and crosses the round trip when there is one.

export interface EmailContinueInput {
  pending: PendingEmail | null;
  now: number;
  /** The Email step has its result already (the sign-in has moved on). */
  hasEmailResult: boolean;
  /**
   * The page may still leave: a login command runs (the challenge stored, the session checked, an
   * authorization started), or the stored login challenge is still being checked.
   */
  pageMayLeave: boolean;
}

export type EmailContinue =
  | { type: 'none' }
  /** A kept address that no longer applies: dropped. */
  | { type: 'drop' }
  /** Kept until the page stays; the Email step shows that it is busy. */
  | { type: 'wait' }
  /** Look the address up now (the Email step's own submit). */
  | { type: 'submit'; email: string };

export function decideEmailContinue(input: EmailContinueInput): EmailContinue {
  const { pending } = input;
  if (!pending) return { type: 'none' };
  if (input.now >= pending.expiresAt || input.hasEmailResult) return { type: 'drop' };
  if (input.pageMayLeave) return { type: 'wait' };
  return { type: 'submit', email: pending.email };
}
