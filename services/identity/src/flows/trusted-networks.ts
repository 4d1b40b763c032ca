import { requestIdHeaders } from '@acme/service-kit/request-id';
import type { IdentityContext } from '../context.ts';

/**
 * The organisation's trusted networks (issue 24), checked at the one place every sign-in of this
 * service creates a session: the engine's `success` with an identity (password, SSO, backup
 * codes, TOTP, recovery, and passkeys when they land). The user service keeps the lists and
 * answers `POST /admin/trusted-networks/check` for the identity's user (the user whose
 * `identity_id` it is) and the client address this service derived through `TRUST_PROXY`.
 * No statement of this service's database: one HTTP call.
 *
 * Refused only on the user service's 403 `NETWORK_NOT_TRUSTED`. When the user service cannot be
 * reached the sign-in goes on (logged): no token is issued without the user service, which checks
 * the same list again for the consent, the first-party consent skip and every refresh.
 */
export async function outsideTrustedNetworks(
  service: IdentityContext,
  identityId: string,
  clientAddress: string,
): Promise<boolean> {
  const base = service.config.usersAdminUrl.replace(/\/+$/, '');
  const key = service.config.usersAdminKey;
  let res: Response;
  try {
    res = await fetch(`${base}/admin/trusted-networks/check`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...requestIdHeaders(),
      },
      body: JSON.stringify({ identityId, clientAddress }),
      signal: AbortSignal.timeout(service.config.upstreamTimeoutMs),
    });
  } catch {
    return false;
  }
  const body = (await res.json().catch(() => undefined)) as { errorCode?: unknown } | undefined;
  return res.status === 403 && body?.errorCode === 'NETWORK_NOT_TRUSTED';
}
