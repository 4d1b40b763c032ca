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
  webauthn: 'aal2',
  // A passkey is aal1, or aal2 by itself when the authenticator verified the user (UV): see `computeAal`.
  passkey: 'aal1',
};

/**
 * Kratos `session.SetAuthenticatorAssuranceLevel`: aal2 needs an aal1 and an aal2 entry. Ours besides:
 * a passkey entry recorded as aal2 (the authenticator verified the user: something held and something
 * known or inherent, in one gesture) is aal2 on its own (docs/security.md, "Passkeys").
 */
export function computeAal(
  methods: (Pick<SessionAuthenticationMethod, 'aal'> & { method?: string | undefined })[],
): Aal {
  if (methods.length === 0) return 'aal0';
  const has = (l: AuthenticatorAssuranceLevel) => methods.some((m) => m.aal === l);
  if (methods.some((m) => m.method === 'passkey' && m.aal === 'aal2')) return 'aal2';
  return has('aal1') && has('aal2') ? 'aal2' : 'aal1';
}
