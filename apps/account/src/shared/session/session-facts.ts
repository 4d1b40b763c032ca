import { isSsoSession } from '@acme/identity-contract/sso-session';
import type { Session, Traits } from '../identity-client/types.ts';

// The facts the pure decision functions read from a Kratos session.

/** Where loading the session stands. */
export type SessionState = 'loading' | 'none' | 'present' | 'requires-mfa' | 'error';

export interface SessionFacts {
  id: string;
  email: string;
  aal: string;
  methods: string[];
  /** The verified flag of the first verifiable address (true when there is none). */
  firstAddressVerified: boolean;
  isGitUser: boolean;
  gitProviderConnected: boolean;
  tosAccepted: boolean;
  /** ISO date-time, or null. */
  mfaSetupDeadline: string | null;
}

export function sessionFacts(session: Session): SessionFacts {
  const traits = (session.identity?.traits ?? {}) as Partial<Traits>;
  const onboarding = traits.onboarding ?? {};
  const first = session.identity?.verifiable_addresses?.[0];
  return {
    id: session.id,
    email: typeof traits.email === 'string' ? traits.email : '',
    aal: session.authenticator_assurance_level ?? 'aal0',
    methods: (session.authentication_methods ?? []).map((m) => m.method ?? '').filter(Boolean),
    firstAddressVerified: first ? first.verified : true,
    isGitUser: onboarding.isGitUser === true,
    gitProviderConnected: onboarding.gitProviderConnected === true,
    tosAccepted: onboarding.tosAccepted === true,
    mfaSetupDeadline: typeof onboarding.mfaSetupDeadline === 'string' ? onboarding.mfaSetupDeadline : null,
  };
}

/** Signed in by the organisation's SSO (OIDC or SAML): the one predicate, shared with the services. */
export function signedInBySso(facts: SessionFacts): boolean {
  return isSsoSession(facts.methods);
}

/** The session reached aal2 or carries a second-factor method. */
export function hasSecondFactor(facts: SessionFacts): boolean {
  return facts.aal === 'aal2' || facts.methods.includes('totp') || facts.methods.includes('lookup_secret');
}

export function mfaDeadlineInFuture(facts: SessionFacts, now: number): boolean {
  if (!facts.mfaSetupDeadline) return false;
  const t = Date.parse(facts.mfaSetupDeadline);
  return Number.isFinite(t) && t > now;
}
