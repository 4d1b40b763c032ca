import { describe, expect, it } from 'vitest';
import { emailResult, facts, NOW, PAST } from '../../testing/fixtures.ts';
import type { LoginStepInput, LoginStepSelection } from './select-login-step.ts';
import { selectLoginStep } from './select-login-step.ts';

const base: LoginStepInput = {
  flow: null,
  emailResult: emailResult(),
  requiresMfa: false,
  requestedAal: null,
  session: null,
  hasToken: false,
  now: NOW,
  m365SignIn: false,
};

const cases: [string, Partial<LoginStepInput>, LoginStepSelection['step'], boolean?][] = [
  // rule 1
  [
    '1: flow requires verification at aal1 → password confirmation',
    { flow: { requiresVerification: true, requestedAal: 'aal1' } },
    'password-confirmation',
  ],
  [
    '1: applies before the email rule',
    { emailResult: null, flow: { requiresVerification: true, requestedAal: 'aal1' } },
    'password-confirmation',
  ],
  [
    '1: requested aal missing counts as aal1',
    { flow: { requiresVerification: true, requestedAal: null } },
    'password-confirmation',
  ],
  [
    '1: verification at aal2 is not password confirmation (→ rule 3)',
    { flow: { requiresVerification: true, requestedAal: 'aal2' } },
    'mfa',
  ],
  // rule 2
  ['2: no email result → email', { emailResult: null }, 'email'],
  ['2: no email result even with a session → email', { emailResult: null, session: facts() }, 'email'],
  ['2: no email result even when MFA is required → email', { emailResult: null, requiresMfa: true }, 'email'],
  // rule 3
  ['3: MFA required → mfa', { requiresMfa: true }, 'mfa'],
  ['3: aal2 requested by the query → mfa', { requestedAal: 'aal2' }, 'mfa'],
  [
    '3: aal2 requested by the flow → mfa',
    { flow: { requiresVerification: false, requestedAal: 'aal2' } },
    'mfa',
  ],
  ['3: MFA wins over a session', { requiresMfa: true, session: facts() }, 'mfa'],
  // rule 4
  [
    '4: no session, SSO result → sso',
    { emailResult: emailResult({ isSSO: true, provider: 'acme-sso' }) },
    'sso',
  ],
  ['4: no session, password result → password', {}, 'password'],
  [
    '4: no session, m365 result, the application has no m365 sign-in → m365 unavailable',
    { emailResult: emailResult({ isM365: true }) },
    'm365-unavailable',
  ],
  [
    '4: no session, m365 result where m365 sign-in exists → password (the m365 login effect leaves first)',
    { emailResult: emailResult({ isM365: true }), m365SignIn: true },
    'password',
  ],
  [
    '4: an SSO and m365 result without m365 sign-in → sso (single sign-on works here)',
    { emailResult: emailResult({ isSSO: true, isM365: true, provider: 'acme-sso' }) },
    'sso',
  ],
  [
    '4: an SSO result where the person chose the password link (break-glass) → password',
    { emailResult: emailResult({ isSSO: true, provider: 'acme-sso', passwordInstead: true }) },
    'password',
  ],
  [
    '4: the password link chosen for an SSO and m365 address → password (the server decides)',
    { emailResult: emailResult({ isSSO: true, isM365: true, provider: 'acme-sso', passwordInstead: true }) },
    'password',
  ],
  [
    '5: the password link chosen, then a password session without a token → password, clearing the SSO result',
    {
      session: facts({ methods: ['password'], mfaSetupDeadline: PAST }),
      emailResult: emailResult({ isSSO: true, provider: 'acme-sso', passwordInstead: true }),
    },
    'password',
    true,
  ],
  // rule 6
  [
    '6: unverified first address → email confirmation',
    { session: facts({ firstAddressVerified: false }) },
    'email-confirmation',
  ],
  // rule 5
  [
    '5: session with oidc, no token → sso',
    { session: facts({ methods: ['oidc'] }), emailResult: emailResult({ isSSO: true }) },
    'sso',
  ],
  [
    '5: session with saml, no token → sso',
    { session: facts({ methods: ['saml'] }), emailResult: emailResult({ isSSO: true }) },
    'sso',
  ],
  [
    '5: SSO result but session without oidc → password, clearing the SSO result',
    {
      session: facts({ methods: ['password'], mfaSetupDeadline: PAST }),
      emailResult: emailResult({ isSSO: true }),
    },
    'password',
    true,
  ],
  ['5: session ready for a second factor (grace period) → password', { session: facts() }, 'password'],
  [
    '5: session with a second factor (aal2) → password',
    { session: facts({ aal: 'aal2', methods: ['password', 'totp'], mfaSetupDeadline: null }) },
    'password',
  ],
  [
    '5: session with a totp method → password',
    { session: facts({ methods: ['totp'], mfaSetupDeadline: PAST }) },
    'password',
  ],
  [
    '5: with a token the SSO result is kept',
    { session: facts({ methods: ['password'] }), emailResult: emailResult({ isSSO: true }), hasToken: true },
    'password',
    false,
  ],
  [
    '5: otherwise (no factor, deadline passed) → mfa setup',
    { session: facts({ mfaSetupDeadline: PAST }) },
    'mfa-setup',
  ],
  ['5: no deadline and no factor → mfa setup', { session: facts({ mfaSetupDeadline: null }) }, 'mfa-setup'],
];

describe('selectLoginStep', () => {
  it.each(cases)('%s', (_name, overrides, step, clear = false) => {
    expect(selectLoginStep({ ...base, ...overrides })).toEqual({ step, clearSsoEmailResult: clear });
  });
});
