import type { MemberDetail } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';

// A member's sign-in facts as the member page shows them (issue 24): the last sign-in (time, method,
// address) and the lockout. Pure: dates and numbers come formatted by the caller's locale functions.

export interface SignInFactsView {
  lastSignIn: string;
  lockout: string;
  /** A lockout is running: the page points at the unlock action. */
  locked: boolean;
}

export function selectSignInFacts(
  member: Pick<MemberDetail, 'lastSignIn' | 'lockout'>,
  format: { date: (iso: string) => string; number: (n: number) => string },
): SignInFactsView {
  const last = member.lastSignIn;
  const lastSignIn = last
    ? t.member.signedInAt(format.date(last.at), t.member.methods[last.method] ?? last.method, last.ip)
    : t.member.neverSignedIn;
  const lockout = member.lockout;
  if (!lockout) return { lastSignIn, lockout: '—', locked: false };
  if (lockout.locked && lockout.lockedUntil)
    return {
      lastSignIn,
      lockout: t.member.lockedUntil(format.date(lockout.lockedUntil), format.number(lockout.failedAttempts)),
      locked: true,
    };
  return {
    lastSignIn,
    lockout:
      lockout.failedAttempts > 0
        ? t.member.failedSoFar(format.number(lockout.failedAttempts))
        : t.member.notLocked,
    locked: false,
  };
}
