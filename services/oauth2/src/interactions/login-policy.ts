import { interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type { OAuth2Context } from '../context.ts';
import { clientAddressOf } from '../grant-guard.ts';
import { rememberedIdentitySession } from './grant-binding.ts';

/**
 * The user service's refusal when the identity session is unknown, ended, or its identity is
 * deactivated or gone (users `claims/token-claims.ts`).
 */
const SESSION_ENDED = 'SESSION_MISMATCH';

/**
 * Whether the browser's remembered login (the authorization server's own session, Hydra's
 * remember-me) stands for an identity session that has ended: the person was deactivated (console
 * or directory), their sessions were revoked, or they signed out elsewhere. Such a login is not
 * skipped: the authorization asks for a login again instead of going on to the consent (which
 * could only fail with "missing session"). A remembered login without a known identity session, a
 * user service that cannot be reached, or any other refusal (second factor overdue, network not
 * trusted) keeps the usual path, where the consent step names the reason.
 */
async function rememberedLoginEnded(c: OAuth2Context, ctx: KoaContextWithOIDC): Promise<boolean> {
  const { session, result } = ctx.oidc;
  // This very authorization's login just happened, or there is none to skip.
  if (!c.claimsSource || !session?.accountId || result?.login) return false;
  const identitySessionId = await rememberedIdentitySession(c, session.uid, session.accountId);
  if (!identitySessionId) return false;
  try {
    const lookup = await c.claimsSource.fetch({
      identitySessionId,
      subject: session.accountId,
      purpose: 'sign-in',
      clientAddress: clientAddressOf(),
    });
    return lookup.kind === 'refused' && lookup.reason === SESSION_ENDED;
  } catch (err) {
    c.logger.warn({ err: { message: (err as Error).message } }, 'remembered login check unavailable');
    return false;
  }
}

/** oidc-provider's default policy, its login prompt also asked for when the remembered login ended. */
export function interactionPolicyFor(c: OAuth2Context): ReturnType<typeof interactionPolicy.base> {
  const policy = interactionPolicy.base();
  policy
    .get('login')!
    .checks.add(
      new interactionPolicy.Check(
        'identity_session_ended',
        'The remembered login stands for an identity session that has ended',
        'login_required',
        async (ctx) =>
          (await rememberedLoginEnded(c, ctx))
            ? interactionPolicy.Check.REQUEST_PROMPT
            : interactionPolicy.Check.NO_NEED_TO_PROMPT,
      ),
    );
  return policy;
}
