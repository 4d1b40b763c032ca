import Provider, { errors } from 'oidc-provider';
import type { OAuth2Context } from './context.ts';
import { NETWORK_NOT_TRUSTED } from './claims-source.ts';
import { requestState } from './request-state.ts';

/**
 * A refresh token must not outlive what it stands for. At every refresh, before anything is
 * rotated or issued, the grant's identity session is checked and its claims re-read through the
 * user service (which asks the identity admin API): a logout, an admin revocation, an expired
 * session, a password change that ended other sessions, a deactivated or deleted identity, or a
 * user removed from their organisation all refuse the refresh and end the grant with every token
 * of it. A role, product or scope-group change shows in the refreshed access token.
 * A Microsoft 365 person's device grant has no identity session: its consent's claims say
 * `user.authenticationMode: "m365"`, and every refresh re-checks the person instead (identity
 * active, linked, organisation subscribed); its absolute lifetime is OAUTH2_M365_GRANT_TTL.
 * When the user service cannot be reached the refresh answers `temporarily_unavailable` and the
 * grant is kept (the client retries).
 *
 * A device code's exchange (RFC 8628) is checked the same way, from the device's own address: the
 * person approved in a browser inside the organisation's trusted networks, but the tokens go to the
 * device, which may be anywhere. Outside the networks the exchange answers `invalid_grant` and
 * nothing is written (the code is not consumed: the device may poll again from inside).
 */
export async function checkGrantAtTokenRequest(c: OAuth2Context, token: object): Promise<boolean> {
  const grantId = (token as unknown as { grantId?: unknown }).grantId;
  if (!c.claimsSource || typeof grantId !== 'string') return true;
  const consent = await c.claims.storedConsent(grantId);
  const accountId = (token as unknown as { accountId?: unknown }).accountId;
  const subject = typeof accountId === 'string' ? accountId : (consent?.subject ?? '');
  const m365 = (consent?.access_token.user as { authenticationMode?: unknown } | undefined)
    ?.authenticationMode;
  // Grants from before the binding existed, or accepted without an identity session (and not for
  // a Microsoft 365 person), cannot be checked: they keep their lifetime limits only.
  if (!consent?.identitySessionId && m365 !== 'm365') return true;
  let lookup;
  try {
    const clientAddress = clientAddressOf();
    lookup = await c.claimsSource.fetch(
      consent!.identitySessionId
        ? { identitySessionId: consent!.identitySessionId, subject, purpose: 'refresh', clientAddress }
        : { method: 'm365', subject, purpose: 'refresh', clientAddress },
    );
  } catch (err) {
    c.logger.warn({ err: { message: (err as Error).message } }, 'grant check unavailable at refresh');
    throw new errors.TemporarilyUnavailable('the grant cannot be checked right now; retry later');
  }
  if (lookup.kind === 'refused' && lookup.reason === NETWORK_NOT_TRUSTED) {
    // Outside the organisation's trusted networks: this refresh is refused, the grant is kept
    // (the person may refresh again from inside).
    const what = (token as { kind?: unknown }).kind === 'DeviceCode' ? 'device code exchange' : 'refresh';
    c.logger.info({ reason: lookup.reason }, `${what} refused outside the trusted networks`);
    const refused = new errors.InvalidGrant();
    refused.error_description = `${what} refused: the organisation allows sign-in only from its trusted networks`;
    throw refused;
  }
  if (lookup.kind === 'refused') {
    await c.claims.endGrant(grantId);
    c.logger.info({ reason: lookup.reason }, 'grant ended at refresh');
    return false;
  }
  requestState()?.fresh.set(grantId, lookup.session);
  return true;
}

/** The current token request's client address (`ctx.ip`, set by `public/forwarded.ts`). */
export function clientAddressOf(): string | undefined {
  const ip = (Provider.ctx as { ip?: unknown } | undefined)?.ip;
  return typeof ip === 'string' && ip !== '' ? ip : undefined;
}
