import { z } from 'zod';
import type { UsersContext } from '../context.ts';
import type { Caller } from '../http/caller.ts';
import type { ConsentDecision } from './schemas.ts';
import { AppError } from '../http/errors.ts';
import { m365Person } from '../m365/device.ts';
import { sessionOfSubject, tokenClaimsFor } from '../claims/token-claims.ts';

/**
 * Accepts an OAuth2 consent request for the signed-in identity and returns where the browser goes
 * next. The identity session must be active and belong to the consent's subject; the access token
 * then carries the user's organisation products, scope groups and role (`ext` in the JWT). The
 * identity's `onboarding.tosAccepted` is brought in line with the current terms versions first.
 */
export async function acceptConsent(
  ctx: UsersContext,
  answer: { consentChallenge: string; identitySessionId: string; decision?: ConsentDecision },
  clientAddress: string,
): Promise<string> {
  const { consentChallenge, identitySessionId, decision } = answer;
  const lookup = await ctx.oauth2Admin.getConsentRequest(consentChallenge);
  if (lookup.kind === 'handled') return lookup.redirectTo;
  const consent = lookup.request;
  // The platform's own applications (skip_consent), and a client the person already allowed for
  // every scope it asks now (Hydra's `skip`), get the claims without asking. Any other application
  // gets them only on the person's Allow on the consent screen, which names it.
  const asked = !consentSkipped(consent);
  if (asked && decision !== 'allow') {
    await sessionOfSubject(ctx, identitySessionId, consent.subject);
    if (decision === undefined) {
      throw new AppError('CONSENT_REQUIRED', 'The person has not answered the consent screen yet.');
    }
    return ctx.oauth2Admin.rejectConsentRequest(consentChallenge, {
      error: 'access_denied',
      error_description: 'The person denied access to this application.',
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
    // An Allow is remembered for this client and scope set, until revoked on Connected apps.
    remember: asked || consent.skip === true,
    session: claims,
  });
}

type PendingConsent = Extract<
  Awaited<ReturnType<UsersContext['oauth2Admin']['getConsentRequest']>>,
  { kind: 'pending' }
>['request'];

function consentSkipped(consent: PendingConsent): boolean {
  return consent.client?.skip_consent === true || consent.skip === true;
}

/** Only an https logo is shown: any other scheme (http, data:, javascript:) is left out. */
function httpsUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    return new URL(value).protocol === 'https:' ? value : null;
  } catch {
    return null;
  }
}

/** A link the client gives (its home page, policy, terms): https, or http, never another scheme. */
function webUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:' ? value : null;
  } catch {
    return null;
  }
}

/**
 * What the consent screen shows, for the signed-in person only (the identity session of the
 * request's cookie must be the consent's subject): the application, who registered it (the
 * organisation named by the client's `owner`, else the operator), the scopes it asks for, the
 * organisation the person signs in for, and whether the screen is needed at all.
 */
export async function consentScreen(ctx: UsersContext, caller: Caller, consentChallenge: string) {
  const lookup = await ctx.oauth2Admin.getConsentRequest(consentChallenge);
  if (lookup.kind === 'handled') {
    throw new AppError('CONSENT_REQUEST_NOT_FOUND', 'The consent request was already answered.');
  }
  const consent = lookup.request;
  if (caller.session.identity.id !== consent.subject) {
    throw new AppError(
      'SESSION_MISMATCH',
      'The session does not belong to the user of this consent request.',
    );
  }
  const client = consent.client;
  const owner = client?.owner ?? '';
  const registrar = z.uuid().safeParse(owner).success
    ? await ctx.db.selectFrom('organisations').select('name').where('id', '=', owner).executeTakeFirst()
    : undefined;
  const person = await ctx.db
    .selectFrom('organisations')
    .select('name')
    .where('id', '=', caller.user.organisationId)
    .executeTakeFirstOrThrow();
  return {
    needsConsent: !consentSkipped(consent),
    client: {
      clientId: client?.client_id ?? '',
      name: client?.client_name || client?.client_id || '',
      logoUri: httpsUrl(client?.logo_uri),
      clientUri: webUrl(client?.client_uri),
      policyUri: webUrl(client?.policy_uri),
      tosUri: webUrl(client?.tos_uri),
    },
    registeredBy: registrar ? { organisation: registrar.name } : { organisation: null },
    requestedScope: consent.requested_scope ?? [],
    organisation: { name: person.name },
  };
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
