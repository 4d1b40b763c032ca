/**
 * "Signed in by the organisation's SSO" (issue 26): the one predicate for every rule the spec words as
 * "signed in via oidc" (the authenticated rule, "SSO users cannot set up MFA", the login step
 * selection, the 2FA grace check in the token claims). An organisation's IdP signs people in over
 * OIDC or SAML; both are SSO. The identity service, the user service and the app all use this.
 */
export const SSO_METHODS: readonly string[] = ['oidc', 'saml'];

/** A session's authentication methods, as Kratos lists them (`{method}` entries) or as their names. */
type Methods = ReadonlyArray<string | { method?: string | undefined }> | undefined;

export function isSsoSession(methods: Methods): boolean {
  return (methods ?? []).some((m) => SSO_METHODS.includes(typeof m === 'string' ? m : (m.method ?? '')));
}
