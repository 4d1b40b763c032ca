import type { AuthenticatorAssuranceLevel, SessionAuthenticationMethod } from '@ory/client';

export type Aal = 'aal0' | 'aal1' | 'aal2';

/** The AAL each first-party method grants, as Kratos assigns them: a first factor aal1, TOTP and lookup secrets aal2. */
export const METHOD_AAL: Record<string, Aal> = {
  password: 'aal1',
  oidc: 'aal1',
  code: 'aal1',
  code_recovery: 'aal1',
  totp: 'aal2',
  lookup_secret: 'aal2',
};

/** Kratos `session.SetAuthenticatorAssuranceLevel`: aal2 needs an aal1 and an aal2 entry. */
export function computeAal(methods: Pick<SessionAuthenticationMethod, 'aal'>[]): Aal {
  if (methods.length === 0) return 'aal0';
  const has = (l: AuthenticatorAssuranceLevel) => methods.some((m) => m.aal === l);
  return has('aal1') && has('aal2') ? 'aal2' : 'aal1';
}
