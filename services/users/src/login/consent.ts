import type { UsersContext } from '../context.ts';
import { tokenClaimsFor } from './token-claims.ts';

/**
 * Accepts an OAuth2 consent request for the signed-in identity and returns where the browser goes
 * next. The identity session must be active and belong to the consent's subject; the access token
 * then carries the user's organisation products, scope groups and role (`ext` in the JWT). The
 * identity's `onboarding.tosAccepted` is brought in line with the current terms versions first.
 */
export async function acceptConsent(
  ctx: UsersContext,
  consentChallenge: string,
  identitySessionId: string,
  clientAddress: string,
): Promise<string> {
  const lookup = await ctx.oauth2Admin.getConsentRequest(consentChallenge);
  if (lookup.kind === 'handled') return lookup.redirectTo;
  const consent = lookup.request;
  const { claims } = await tokenClaimsFor(ctx, {
    identitySessionId,
    subject: consent.subject,
    purpose: 'sign-in',
    clientAddress,
  });
  return ctx.oauth2Admin.acceptConsentRequest(consentChallenge, {
    grant_scope: consent.requested_scope ?? [],
    grant_access_token_audience: consent.requested_access_token_audience ?? [],
    remember: false,
    session: claims,
  });
}
