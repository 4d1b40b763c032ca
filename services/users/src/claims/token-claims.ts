import { isSsoSession } from '@acme/identity-contract/sso-session';
import type { IdentitySession } from '../clients/identity-admin.ts';
import type { ConsentSession } from '../clients/oauth2-admin.ts';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { hasEverAccepted } from '../terms/repository.ts';
import { recheckTermsAtSignIn } from '../onboarding/service.ts';
import { findUserWithProducts } from '../users/repository.ts';
import { requireTrustedNetwork } from '../access/networks.ts';
import { identityPolicy } from '../sso/service.ts';

/** A sign-in or refresh through the identity service (password, SSO): its identity session. */
interface SessionClaimsRequest {
  method?: 'session';
  identitySessionId: string;
  subject: string;
  purpose: 'sign-in' | 'refresh';
  /** Where the sign-in or refresh comes from, for the organisation's trusted networks. */
  clientAddress?: string | undefined;
}

/** A Microsoft 365 sign-in (`/m365/login`): the user the verified Microsoft account maps to. */
interface M365ClaimsRequest {
  method: 'm365';
  userId: string;
  clientAddress?: string | undefined;
}

export type ClaimsRequest = SessionClaimsRequest | M365ClaimsRequest;

/** The one refusal for an organisation without a subscription at a Microsoft 365 sign-in. */
export function notSubscribed(ctx: UsersContext): AppError {
  return new AppError(
    'UserNotSubscribedException',
    'Your organisation has no subscription. An Owner or Contributor of its Azure subscription can subscribe.',
    {},
    { subscriptionSetupUrl: ctx.config.m365.offerUrl },
  );
}

/**
 * The claims an access token carries, read fresh from the user and identity services. The one
 * place every sign-in method gets its tokens' claims: password and SSO (Hydra's consent `session`,
 * at sign-in, at the authorization server's own consent skip for first-party clients, and at every
 * refresh) and Microsoft 365 (`/m365/login`). So no method can skip a check:
 *
 * Every method is refused (no tokens) when:
 * - the identity is deactivated (a revoked invitation, an operator's deactivation) or gone
 *   (session: SESSION_MISMATCH; m365: ACCOUNT_INACTIVE);
 * - the identity is not linked to the user both ways (`users.identity_id` and the identity's
 *   `userServiceID`) (USER_NOT_LINKED);
 * - the organisation has trusted networks and `clientAddress` is outside them or not given
 *   (NETWORK_NOT_TRUSTED).
 * Per method:
 * - session: the identity session is unknown, inactive or belongs to another identity
 *   (SESSION_MISMATCH); its identity's address was never proven (EMAIL_NOT_VERIFIED); at sign-in,
 *   a person signed in without SSO who never accepted the terms (TERMS_NOT_ACCEPTED); at sign-in, the
 *   second-factor grace period is over (SECOND_FACTOR_REQUIRED), and the terms are re-checked; the
 *   organisation enforces SSO, the person is not its break-glass org-admin, and the session did not
 *   sign in through the organisation's provider (SSO_REQUIRED), at sign-in and at every refresh;
 * - m365: the organisation is not subscribed (UserNotSubscribedException). The second-factor and
 *   terms checks do not apply: Microsoft signs the person in, and the app counts a token whose
 *   authentication mode is m365 as authenticated, whatever else holds.
 * A refresh thus ends when the identity session ended (logout, revocation, expiry, deactivation,
 * deletion, removal from the organisation), and a role or product change shows at the next refresh.
 */
export async function tokenClaimsFor(
  ctx: UsersContext,
  input: ClaimsRequest,
): Promise<{ identityId: string; claims: ConsentSession }> {
  let identity: { id: string; state: string | undefined; userServiceID: string | undefined };
  let mode: 'ory' | 'm365';
  let userId: string | undefined;
  let traits: IdentitySession['identity']['traits'] | undefined;
  let row: Awaited<ReturnType<typeof findUserWithProducts>> | undefined;
  /** The session signed in through the organisation's provider (oidc, saml). */
  let viaProvider = false;
  if (input.method === 'm365') {
    mode = 'm365';
    row = uuidSchema.safeParse(input.userId).success
      ? await findUserWithProducts(ctx.db, input.userId)
      : null;
    const found = row?.identityId ? await ctx.identityAdmin.getIdentity(row.identityId) : null;
    if (!found) {
      throw new AppError('USER_NOT_LINKED', 'The signed-in account is not linked to a user.');
    }
    if (!isActive(found.state)) {
      throw new AppError(
        'ACCOUNT_INACTIVE',
        "Your account is deactivated. Please contact your organisation's administrator.",
      );
    }
    identity = found;
    userId = input.userId;
  } else {
    mode = 'ory';
    const session = await sessionOfSubject(ctx, input.identitySessionId, input.subject);
    // A self sign-up gets nothing before its address is proven by the emailed code (the identity
    // service issues no session before it either; this holds for sessions from before that, too).
    if (!(session.identity.verifiable_addresses ?? []).some((a) => a.verified)) {
      throw new AppError(
        'EMAIL_NOT_VERIFIED',
        'Your email address is not verified yet. Enter the code we sent you, then sign in again.',
      );
    }
    if (input.purpose === 'sign-in' && secondFactorOverdue(session, ctx.clock.now())) {
      throw new AppError(
        'SECOND_FACTOR_REQUIRED',
        'The second-factor grace period is over: set up a second factor to sign in.',
      );
    }
    identity = {
      id: session.identity.id,
      state: session.identity.state,
      userServiceID: session.identity.traits.userServiceID,
    };
    userId = session.identity.traits.userServiceID;
    traits = session.identity.traits;
    viaProvider = isSsoSession(session.authentication_methods);
  }

  const user =
    row !== undefined
      ? row
      : userId !== undefined && uuidSchema.safeParse(userId).success
        ? await findUserWithProducts(ctx.db, userId)
        : null;
  const linkedBothWays =
    !!user &&
    identity.userServiceID === userId &&
    // An identity created before its user row was linked (step 3 of createUser) counts for a session.
    (user.identityId === identity.id || (mode === 'ory' && user.identityId === null));
  if (!user || !linkedBothWays) {
    throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
  }
  if (mode === 'm365' && user.subscriptionStatus !== 'subscribed') throw notSubscribed(ctx);
  if (mode === 'ory' && !viaProvider && (await identityPolicy(ctx, identity.id)).enforced) {
    // Issue 31, item 4: whatever credential the identity holds (a password or passkey set up before
    // enforcement, an address changed away from the organisation's domain), a member of an
    // organisation that enforces SSO gets tokens only from a session its provider signed in.
    throw new AppError(
      'SSO_REQUIRED',
      "Your organisation requires single sign-on (SSO): sign in through your organisation's identity provider.",
    );
  }
  await requireTrustedNetwork(ctx.db, user.organisationId, input.clientAddress);
  if (input.method !== 'm365' && input.purpose === 'sign-in' && traits) {
    // Someone who signs in with the platform's own credentials has accepted the terms before their
    // first token (a self sign-up accepts them in the app, which asks again after this refusal).
    // SSO people are asked right after their first sign-in (the onboarding's Terms step).
    if (!viaProvider && !(await hasEverAccepted(ctx.db, userId!))) {
      throw new AppError(
        'TERMS_NOT_ACCEPTED',
        'Accept the terms of service and the privacy policy to continue.',
      );
    }
    // Terms versions may have changed since the last sign-in: the app then shows the Terms step.
    await recheckTermsAtSignIn(ctx, userId!, identity.id, traits);
  }

  return {
    identityId: identity.id,
    claims: {
      access_token: {
        // Who signed in, for the landing pages' "Signed in as" in every mode (an m365 person has no
        // identity session to read it from).
        user: {
          authenticationMode: mode,
          email: user.email,
          name: `${user.firstName} ${user.lastName}`.trim(),
        },
        products: user.products,
        scopeGroups: user.scopeGroups,
        role: user.role,
        // Which organisation the person signs in for, for resource servers that answer with it
        // (the agent service's MCP tools).
        organisation: { id: user.organisationId, name: user.organisationName },
        // The app shows the welcome page instead of the product to an organisation without one.
        subscriptionStatus: user.subscriptionStatus,
      },
      id_token: { email: user.email },
    },
  };
}

/**
 * The identity session `identitySessionId` when it is active and signed in `subject`, whose
 * identity is active; otherwise SESSION_MISMATCH. What a consent's answer (approve or deny) needs
 * to show that the person it names is the one answering.
 */
export async function sessionOfSubject(
  ctx: UsersContext,
  identitySessionId: string,
  subject: string,
): Promise<IdentitySession> {
  const session = await ctx.identityAdmin.getSession(identitySessionId);
  if (
    !session ||
    session.active === false ||
    session.identity.id !== subject ||
    // A deactivated identity's sessions count for nothing, whatever their own expiry.
    !isActive(session.identity.state)
  ) {
    throw new AppError(
      'SESSION_MISMATCH',
      'The session does not belong to the user of this consent request.',
    );
  }
  return session;
}

/** The user an identity belongs to (a token's subject), or USER_NOT_LINKED. */
export async function userOfIdentity(ctx: UsersContext, identityId: string): Promise<string> {
  const row = uuidSchema.safeParse(identityId).success
    ? await ctx.db.selectFrom('users').select('id').where('identity_id', '=', identityId).executeTakeFirst()
    : undefined;
  if (!row) throw new AppError('USER_NOT_LINKED', 'The signed-in identity is not linked to a user.');
  return row.id;
}

/** Kratos' identity `state`: absent (older records) counts as active. */
function isActive(state: string | undefined): boolean {
  return state === undefined || state === 'active';
}

/**
 * A session counts only if it signed in through SSO (oidc or saml: isSsoSession), reached aal2, or its identity's
 * `onboarding.mfaSetupDeadline` is still in the future. An identity with TOTP never reaches consent
 * at aal1 (the identity service steps the login up to aal2 first), so an aal1 password session past
 * the deadline has no second factor: it gets no tokens.
 */
function secondFactorOverdue(session: IdentitySession, now: Date): boolean {
  if (session.authenticator_assurance_level === 'aal2') return false;
  if (isSsoSession(session.authentication_methods)) return false;
  const onboarding = session.identity.traits.onboarding as { mfaSetupDeadline?: unknown } | undefined;
  const deadline =
    typeof onboarding?.mfaSetupDeadline === 'string' ? Date.parse(onboarding.mfaSetupDeadline) : NaN;
  return !(deadline > now.getTime());
}
