import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { m365Person } from '../m365/device.ts';
import { sessionOfSubject, tokenClaimsFor } from './token-claims.ts';

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
  // Only the platform's own applications (skip_consent) get a person's claims without asking. Any
  // other application registered with the authorization server would need a consent screen that
  // names it, which this page does not show: it gets access_denied, never the claims.
  if (consent.client?.skip_consent !== true) {
    await sessionOfSubject(ctx, identitySessionId, consent.subject);
    return ctx.oauth2Admin.rejectConsentRequest(consentChallenge, {
      error: 'access_denied',
      error_description: 'The person was not asked to consent to this application.',
    });
  }
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

/**
 * The device page's Deny: rejects a device client's consent request with `access_denied`. Only the
 * person who could approve it may deny it, proven the same way: for a sign-in through the identity
 * service, an active identity session of the consent's subject (as `/login/consent`); for a
 * Microsoft 365 sign-in, that person's own token from `/m365/login` (as `/m365/device/consent`).
 * Someone holding only the challenge is refused, and the device's request stays as it was.
 */
export async function denyDeviceConsent(
  ctx: UsersContext,
  consentChallenge: string,
  proof: { identitySessionId: string | undefined; bearer: string | undefined },
): Promise<string> {
  const lookup = await ctx.oauth2Admin.getConsentRequest(consentChallenge);
  if (lookup.kind === 'handled') {
    throw new AppError('CONSENT_REQUEST_NOT_FOUND', 'The consent request was already answered.');
  }
  const consent = lookup.request;
  if (consent.context?.authenticationMode === 'm365') {
    if (proof.bearer === undefined) {
      throw new AppError('UNAUTHENTICATED', 'Sign in to answer this device sign-in.');
    }
    const person = await m365Person(ctx, proof.bearer);
    if (person.identityId !== consent.subject) {
      throw new AppError(
        'SESSION_MISMATCH',
        'The session does not belong to the user of this consent request.',
      );
    }
  } else if (proof.identitySessionId === undefined) {
    throw new AppError('UNAUTHENTICATED', 'Sign in to answer this device sign-in.');
  } else {
    await sessionOfSubject(ctx, proof.identitySessionId, consent.subject);
  }
  return ctx.oauth2Admin.rejectConsentRequest(consentChallenge, {
    error: 'access_denied',
    error_description: 'The person denied the device sign-in.',
  });
}
