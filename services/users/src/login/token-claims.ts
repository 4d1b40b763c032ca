import type { IdentitySession } from '../clients/identity-admin.ts';
import type { ConsentSession } from '../clients/oauth2-admin.ts';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { recheckTermsAtSignIn } from '../terms/service.ts';
import { findUserWithProducts } from '../users/repository.ts';

/**
 * The claims an access token carries for an identity session (Hydra's consent `session`), read
 * fresh from the user and identity services. Used at sign-in (consent, or the authorization
 * server's own consent skip for first-party clients) and at every refresh, so that a refresh ends
 * when the identity session ended (logout, revocation, expiry, deactivation, deletion, removal
 * from the organisation) and a role or product change shows at the next refresh.
 *
 * Refused (no tokens) when:
 * - the identity session is unknown, inactive, belongs to another identity, or its identity is
 *   deactivated (SESSION_MISMATCH);
 * - the identity is not linked to a user of an organisation (USER_NOT_LINKED);
 * - at sign-in only: the second-factor grace period is over (SECOND_FACTOR_REQUIRED).
 */
export async function tokenClaimsFor(
  ctx: UsersContext,
  input: { identitySessionId: string; subject: string; purpose: 'sign-in' | 'refresh' },
): Promise<{ session: IdentitySession; claims: ConsentSession }> {
  const session = await ctx.identityAdmin.getSession(input.identitySessionId);
  if (
    !session ||
    session.active === false ||
    session.identity.id !== input.subject ||
    // A deactivated identity's sessions count for nothing, whatever their own expiry.
    (session.identity.state !== undefined && session.identity.state !== 'active')
  ) {
    throw new AppError(
      'SESSION_MISMATCH',
      'The session does not belong to the user of this consent request.',
    );
  }
  if (input.purpose === 'sign-in' && secondFactorOverdue(session, ctx.clock.now())) {
    throw new AppError(
      'SECOND_FACTOR_REQUIRED',
      'The second-factor grace period is over: set up a second factor to sign in.',
    );
  }

  const userId = session.identity.traits.userServiceID;
  const user =
    userId !== undefined && uuidSchema.safeParse(userId).success
      ? await findUserWithProducts(ctx.db, userId)
      : null;
  if (!user || (user.identityId !== null && user.identityId !== session.identity.id)) {
    throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
  }
  if (input.purpose === 'sign-in') {
    // Terms versions may have changed since the last sign-in: the app then shows the Terms step.
    await recheckTermsAtSignIn(ctx, userId!, session.identity.id, session.identity.traits);
  }
  return {
    session,
    claims: {
      access_token: {
        user: { authenticationMode: 'ory' },
        products: user.products,
        scopeGroups: user.scopeGroups,
        role: user.role,
        // The app shows the welcome page instead of the product to an organisation without one.
        subscriptionStatus: user.subscriptionStatus,
      },
      id_token: { email: user.email },
    },
  };
}

/**
 * A session counts only if it signed in through SSO (oidc), reached aal2, or its identity's
 * `onboarding.mfaSetupDeadline` is still in the future. An identity with TOTP never reaches consent
 * at aal1 (the identity service steps the login up to aal2 first), so an aal1 password session past
 * the deadline has no second factor: it gets no tokens.
 */
function secondFactorOverdue(session: IdentitySession, now: Date): boolean {
  if (session.authenticator_assurance_level === 'aal2') return false;
  if (session.authentication_methods?.some((m) => m.method === 'oidc')) return false;
  const onboarding = session.identity.traits.onboarding as { mfaSetupDeadline?: unknown } | undefined;
  const deadline =
    typeof onboarding?.mfaSetupDeadline === 'string' ? Date.parse(onboarding.mfaSetupDeadline) : NaN;
  return !(deadline > now.getTime());
}
