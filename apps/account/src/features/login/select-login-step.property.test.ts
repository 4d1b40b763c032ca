import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionFacts } from '../../shared/session/session-facts.ts';
import type { LoginStepInput } from './select-login-step.ts';
import { selectLoginStep } from './select-login-step.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');

const sessionArb: fc.Arbitrary<SessionFacts> = fc.record({
  id: fc.string(),
  email: fc.emailAddress(),
  aal: fc.constantFrom('aal0', 'aal1', 'aal2'),
  methods: fc.subarray(['password', 'oidc', 'saml', 'totp', 'code_recovery', 'lookup_secret']),
  firstAddressVerified: fc.boolean(),
  isGitUser: fc.boolean(),
  gitProviderConnected: fc.boolean(),
  tosAccepted: fc.boolean(),
  mfaSetupDeadline: fc.option(fc.constantFrom('2025-01-01T00:00:00Z', '2027-01-01T00:00:00Z', 'garbage')),
});

const inputArb: fc.Arbitrary<LoginStepInput> = fc.record({
  flow: fc.option(
    fc.record({
      requiresVerification: fc.boolean(),
      requestedAal: fc.option(fc.constantFrom('aal1', 'aal2')),
    }),
  ),
  emailResult: fc.option(
    fc.record({
      email: fc.emailAddress(),
      isSSO: fc.boolean(),
      isM365: fc.boolean(),
      provider: fc.option(fc.string()),
    }),
  ),
  requiresMfa: fc.boolean(),
  requestedAal: fc.option(fc.constantFrom('aal1', 'aal2')),
  session: fc.option(sessionArb),
  hasToken: fc.boolean(),
  now: fc.constant(NOW),
  m365SignIn: fc.boolean(),
});

describe('selectLoginStep properties', () => {
  it('always picks one of the eight steps', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        expect([
          'email',
          'password',
          'sso',
          'mfa',
          'mfa-setup',
          'email-confirmation',
          'password-confirmation',
          'm365-unavailable',
        ]).toContain(selectLoginStep(input).step);
      }),
    );
  });

  it('without an email result the step is Email unless the flow asks to re-authenticate', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const step = selectLoginStep({ ...input, emailResult: null }).step;
        expect(['email', 'password-confirmation']).toContain(step);
      }),
    );
  });

  it('never asks an unauthenticated visitor (no session) to set up MFA or confirm their address', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        const step = selectLoginStep({ ...input, session: null }).step;
        expect(['mfa-setup', 'email-confirmation']).not.toContain(step);
      }),
    );
  });

  it('says m365 sign-in is unavailable only for an m365 result on an application without it', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        if (selectLoginStep(input).step === 'm365-unavailable') {
          expect(input.emailResult?.isM365).toBe(true);
          expect(input.m365SignIn).toBe(false);
        }
      }),
    );
  });

  it('only clears the SSO email result when it was an SSO result', () => {
    fc.assert(
      fc.property(inputArb, (input) => {
        if (selectLoginStep(input).clearSsoEmailResult) expect(input.emailResult?.isSSO).toBe(true);
      }),
    );
  });
});
