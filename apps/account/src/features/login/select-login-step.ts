import type { EmailResult } from '../../shared/storage/registry.ts';
import type { SessionFacts } from '../../shared/session/session-facts.ts';
import { hasSecondFactor, mfaDeadlineInFuture, signedInBySso } from '../../shared/session/session-facts.ts';

// The login step selection, rules 1–6, as one pure function. The step is derived, never stored.

export type LoginStep =
  | 'email'
  | 'password'
  | 'sso'
  | 'mfa'
  | 'mfa-setup'
  | 'email-confirmation'
  | 'password-confirmation'
  /** A Microsoft 365 address on an application without Microsoft 365 sign-in: say so, point elsewhere. */
  | 'm365-unavailable';

export interface LoginStepInput {
  /** The current login flow: does it ask to re-authenticate (message 1010003), and which AAL does it request? */
  flow: { requiresVerification: boolean; requestedAal: string | null } | null;
  emailResult: EmailResult | null;
  /** whoami answered 403 (session_aal2_required). */
  requiresMfa: boolean;
  /** aal requested by the query or the flow. */
  requestedAal: string | null;
  session: SessionFacts | null;
  hasToken: boolean;
  now: number;
  /** This application allows Microsoft 365 sign-in and has its set-up (else m365 addresses cannot sign in here). */
  m365SignIn: boolean;
}

export interface LoginStepSelection {
  step: LoginStep;
  /** Rule 5: an SSO email result is cleared when the session has no oidc method. */
  clearSsoEmailResult: boolean;
}

const pick = (step: LoginStep, clearSsoEmailResult = false): LoginStepSelection => ({
  step,
  clearSsoEmailResult,
});

export function selectLoginStep(input: LoginStepInput): LoginStepSelection {
  const { flow, emailResult, session } = input;
  // 1. A flow that requires verification at aal1: password confirmation.
  if (flow?.requiresVerification && (flow.requestedAal ?? 'aal1') === 'aal1')
    return pick('password-confirmation');
  // 2. No email result: Email.
  if (!emailResult) return pick('email');
  // 3. MFA required or aal2 requested: MFA.
  if (input.requiresMfa || input.requestedAal === 'aal2' || flow?.requestedAal === 'aal2') return pick('mfa');
  // 4. No session: SSO for an SSO result, otherwise Password. An m365 result goes to the m365 login
  //    (a login effect) where the application has one; where it has none, the step says so.
  //    An SSO result where the person chose the password link (break-glass) goes to Password.
  if (!session) {
    if (emailResult.isSSO) return pick(emailResult.passwordInstead ? 'password' : 'sso');
    return pick(emailResult.isM365 && !input.m365SignIn ? 'm365-unavailable' : 'password');
  }
  // 6. An unverified first address: Email confirmation. It needs a session, and rule 5 always decides,
  //    so it is checked before rule 5.
  if (!session.firstAddressVerified) return pick('email-confirmation');
  // 5. With a session: an SSO user, a session ready for a second factor (inside the setup grace period)
  //    or one that has a second factor continues with SSO or Password; everyone else sets up MFA.
  const isSso = emailResult.isSSO || signedInBySso(session);
  if (isSso || mfaDeadlineInFuture(session, input.now) || hasSecondFactor(session)) {
    const oidc = signedInBySso(session);
    return pick(oidc ? 'sso' : 'password', !input.hasToken && !oidc && emailResult.isSSO);
  }
  return pick('mfa-setup');
}
