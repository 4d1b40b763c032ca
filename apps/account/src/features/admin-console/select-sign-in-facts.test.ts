import { describe, expect, it } from 'vitest';
import type { MemberDetail } from './console-client.ts';
import { selectSignInFacts, type SignInFactsView } from './select-sign-in-facts.ts';

const format = { date: (iso: string) => `<${iso}>`, number: (n: number) => `#${n}` };
const AT = '2026-11-25T10:00:00.000Z';
const UNTIL = '2026-11-25T10:15:00.000Z';

describe('selectSignInFacts', () => {
  it.each<[string, Pick<MemberDetail, 'lastSignIn' | 'lockout'>, SignInFactsView]>([
    [
      'never signed in, unknown identity',
      { lastSignIn: null, lockout: null },
      { lastSignIn: 'None recorded', lockout: '—', locked: false },
    ],
    [
      'password sign-in with an address, no failures',
      {
        lastSignIn: { at: AT, method: 'password', ip: '203.0.113.7' },
        lockout: { locked: false, lockedUntil: null, failedAttempts: 0 },
      },
      { lastSignIn: `<${AT}> with password, from 203.0.113.7`, lockout: 'Not locked', locked: false },
    ],
    [
      'single sign-on without an address, some failures',
      {
        lastSignIn: { at: AT, method: 'oidc', ip: null },
        lockout: { locked: false, lockedUntil: null, failedAttempts: 3 },
      },
      {
        lastSignIn: `<${AT}> with single sign-on`,
        lockout: 'Not locked (#3 failed attempts since the last sign-in)',
        locked: false,
      },
    ],
    [
      'locked out',
      {
        lastSignIn: { at: AT, method: 'lookup_secret', ip: '::1' },
        lockout: { locked: true, lockedUntil: UNTIL, failedAttempts: 10 },
      },
      {
        lastSignIn: `<${AT}> with backup code, from ::1`,
        lockout: `Locked until <${UNTIL}> (#10 failed attempts)`,
        locked: true,
      },
    ],
    [
      'an unknown method is named as it is',
      {
        lastSignIn: { at: AT, method: 'saml', ip: null },
        lockout: { locked: false, lockedUntil: null, failedAttempts: 0 },
      },
      { lastSignIn: `<${AT}> with saml`, lockout: 'Not locked', locked: false },
    ],
  ])('%s', (_name, member, view) => {
    expect(selectSignInFacts(member, format)).toEqual(view);
  });
});
