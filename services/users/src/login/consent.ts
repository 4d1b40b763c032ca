import type { IdentitySession } from '../clients/identity-admin.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { recheckTermsAtSignIn } from '../terms/service.ts';
import { findUserWithProducts } from '../users/repository.ts';

/**
 * Accepts an OAuth2 consent request for the signed-in identity and returns where the browser goes
 * next. The identity session must be active and belong to the consent's subject; the access token
 * then carries the user's organisation products and scope groups (`ext` in the JWT). The identity's
 * `onboarding.tosAccepted` is brought in line with the current terms versions first.
 */
export async function acceptConsent(
  deps: Deps,
  consentChallenge: string,
  identitySessionId: string,
): Promise<string> {
  const lookup = await deps.oauth2Admin.getConsentRequest(consentChallenge);
  if (lookup.kind === 'handled') return lookup.redirectTo;
  const consent = lookup.request;

  const session = await deps.identityAdmin.getSession(identitySessionId);
  if (!session || session.active === false || session.identity.id !== consent.subject) {
    throw new AppError(
      'SESSION_MISMATCH',
      'The session does not belong to the user of this consent request.',
    );
  }

  if (secondFactorOverdue(session, deps.clock.now())) {
    throw new AppError(
      'SECOND_FACTOR_REQUIRED',
      'The second-factor grace period is over: set up a second factor to sign in.',
    );
  }

  const userId = session.identity.traits.userServiceID;
  const user =
    userId !== undefined && uuidSchema.safeParse(userId).success
      ? await findUserWithProducts(deps.db, userId)
      : null;
  if (!user || (user.identityId !== null && user.identityId !== session.identity.id)) {
    throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
  }
  // Terms versions may have changed since the last sign-in: the app then shows the Terms step.
  await recheckTermsAtSignIn(deps, userId!, session.identity.id, session.identity.traits);

  return deps.oauth2Admin.acceptConsentRequest(consentChallenge, {
    grant_scope: consent.requested_scope ?? [],
    grant_access_token_audience: consent.requested_access_token_audience ?? [],
    remember: false,
    session: {
      access_token: {
        user: { authenticationMode: 'ory' },
        products: user.products,
        scopeGroups: user.scopeGroups,
      },
      id_token: { email: user.email },
    },
  });
}

/**
 * The "authenticated" rule (a second factor once the grace period is over), enforced on the server: a session counts only if it signed in through
 * SSO (oidc), reached aal2, or its identity's `onboarding.mfaSetupDeadline` is still in the future.
 * An identity with TOTP never reaches consent at aal1 (the identity service steps the login up to
 * aal2 first), so an aal1 password session past the deadline has no second factor: it gets no tokens.
 */
export function secondFactorOverdue(session: IdentitySession, now: Date): boolean {
  if (session.authenticator_assurance_level === 'aal2') return false;
  if (session.authentication_methods?.some((m) => m.method === 'oidc')) return false;
  const onboarding = session.identity.traits.onboarding as { mfaSetupDeadline?: unknown } | undefined;
  const deadline =
    typeof onboarding?.mfaSetupDeadline === 'string' ? Date.parse(onboarding.mfaSetupDeadline) : NaN;
  return !(deadline > now.getTime());
}
