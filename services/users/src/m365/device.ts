import type { UsersContext } from '../context.ts';
import { introspect } from '../access/auth.ts';
import { AppError } from '../http/errors.ts';
import { tokenClaimsFor, userOfIdentity } from '../claims/token-claims.ts';

/**
 * Device sign-in (RFC 8628) for Microsoft 365 people, who have no identity session: the device page
 * of an application with Microsoft 365 sign-in (MAGIC) accepts the device client's login request
 * and then its consent with the person's own access token from `/m365/login`.
 *
 * The token is checked by the authorization server's introspection (signature, expiry, a live
 * grant) and must be an m365 sign-in's: issued to the m365 client (M365_OAUTH2_CLIENT_ID) with
 * `ext.user.authenticationMode: "m365"`. Neither a browser sign-in's token of the same client nor a
 * device's own token qualifies: one could skip the second factor, the other chain devices.
 * The person is then re-checked (identity active, linked, organisation subscribed, the page's
 * address inside the organisation's trusted networks), as at every m365 sign-in. Only device clients' requests are accepted here: Platform and the other
 * applications refuse Microsoft 365 people.
 */

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** The m365 person behind a bearer token: their identity and user. */
interface M365Person {
  identityId: string;
  userId: string;
}

function unauthenticated(): AppError {
  return new AppError('UNAUTHENTICATED', 'A Microsoft 365 sign-in is required (Authorization: Bearer).', {
    'WWW-Authenticate': 'Bearer',
  });
}

function refused(message: string): AppError {
  return new AppError('DEVICE_SIGN_IN_REFUSED', message);
}

/** The Microsoft 365 person a bearer token (from `/m365/login`) stands for, or UNAUTHENTICATED. */
export async function m365Person(ctx: UsersContext, bearer: string): Promise<M365Person> {
  const token = await introspect(ctx, bearer);
  const mode = (token.ext?.user as { authenticationMode?: unknown } | undefined)?.authenticationMode;
  if (
    !token.active ||
    !token.sub ||
    token.token_use !== 'access_token' ||
    token.client_id !== ctx.config.m365.oauth2ClientId ||
    mode !== 'm365'
  ) {
    throw unauthenticated();
  }
  return { identityId: token.sub, userId: await userOfIdentity(ctx, token.sub) };
}

const isDeviceClient = (client: { grant_types?: string[] | null } | undefined) =>
  client?.grant_types?.includes(DEVICE_GRANT) === true;

/**
 * `POST /m365/device/login`: accepts a device client's login request for the token's person.
 * `application` (the client id of the app whose page asks) is where the consent is shown next.
 */
export async function acceptM365DeviceLogin(
  ctx: UsersContext,
  bearer: string,
  loginChallenge: string,
  application: string,
  clientAddress: string,
): Promise<string> {
  const person = await m365Person(ctx, bearer);
  // The same checks as an m365 sign-in (active, linked, subscribed, inside the organisation's
  // trusted networks) before anything is accepted.
  await tokenClaimsFor(ctx, { method: 'm365', userId: person.userId, clientAddress });
  const login = await ctx.oauth2Admin.getLoginRequest(loginChallenge);
  if (!isDeviceClient(login.client)) {
    throw refused('Microsoft 365 sign-in here is only for connecting a device.');
  }
  return ctx.oauth2Admin.acceptLoginRequest(loginChallenge, {
    subject: person.identityId,
    remember: false,
    amr: ['m365'],
    context: { authenticationMode: 'm365', application },
  });
}

/**
 * `POST /m365/device/consent`: the person approves what the device asks for. The consent must be
 * a device client's, signed in through `/m365/device/login` as this same person.
 */
export async function acceptM365DeviceConsent(
  ctx: UsersContext,
  bearer: string,
  consentChallenge: string,
  clientAddress: string,
): Promise<string> {
  const person = await m365Person(ctx, bearer);
  const lookup = await ctx.oauth2Admin.getConsentRequest(consentChallenge);
  if (lookup.kind === 'handled') {
    throw new AppError('CONSENT_REQUEST_NOT_FOUND', 'The consent request was already answered.');
  }
  const consent = lookup.request;
  if (
    !isDeviceClient(consent.client) ||
    consent.context?.authenticationMode !== 'm365' ||
    consent.subject !== person.identityId
  ) {
    throw refused('This device sign-in belongs to another person or was not a Microsoft 365 sign-in.');
  }
  const { claims } = await tokenClaimsFor(ctx, { method: 'm365', userId: person.userId, clientAddress });
  // A replay, also one racing this approval, is refused rather than sent back to the request.
  return ctx.oauth2Admin.acceptConsentRequest(
    consentChallenge,
    {
      grant_scope: consent.requested_scope ?? [],
      grant_access_token_audience: consent.requested_access_token_audience ?? [],
      remember: false,
      session: claims,
    },
    { refuseAnswered: true },
  );
}
