import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { fetchOnceMore } from '@acme/service-kit/once-more';
import { requestIdHeaders } from '@acme/service-kit/request-id';
import type { ConsentSession, JsonObject } from './claims.ts';

/**
 * The user service's `POST /admin/token-claims`: the claims a grant carries, read fresh, after the
 * user service checked (through the identity admin API) that the identity session is still active
 * and belongs to the subject, and that the identity is still a user of an organisation.
 */
type ClaimsLookup =
  { kind: 'granted'; session: ConsentSession } | { kind: 'refused'; reason: string; message?: string };

/** The user service's error code for a request from outside the organisation's trusted networks. */
export const NETWORK_NOT_TRUSTED = 'NETWORK_NOT_TRUSTED';

export interface ClaimsSource {
  fetch(
    input: (
      | { identitySessionId: string; subject: string; purpose: 'sign-in' | 'refresh' }
      /** A Microsoft 365 person's device grant at refresh: no identity session, the person is re-checked. */
      | { method: 'm365'; subject: string; purpose: 'refresh' }
    ) & {
      /** The token or authorization request's client address (`ctx.ip`, after the trusted proxies). */
      clientAddress: string | undefined;
    },
  ): Promise<ClaimsLookup>;
  /**
   * The user service's `POST /admin/trusted-networks/check`: whether an organisation's API client
   * may get a token from `clientAddress` (refused outside the organisation's trusted networks).
   */
  checkNetwork(input: { organisationId: string; clientAddress: string }): Promise<ClaimsLookup['kind']>;
}

class ClaimsSourceUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClaimsSourceUnavailable';
  }
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

export function createClaimsSource(
  baseUrl: string,
  timeoutMs: number,
  adminKey: string | undefined,
): ClaimsSource {
  const auth = adminAuthHeaders(adminKey);
  // Both calls only read (claims, a network check): sent once more when the connection fails first.
  const post = async (path: string, input: object): Promise<Response> => {
    const signal = AbortSignal.timeout(timeoutMs);
    const send = () =>
      fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          ...auth,
          ...requestIdHeaders(),
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify(input),
        signal,
      });
    try {
      return await fetchOnceMore(send, signal);
    } catch {
      throw new ClaimsSourceUnavailable('the user service could not be reached');
    }
  };
  return {
    async checkNetwork(input) {
      const res = await post('/admin/trusted-networks/check', input);
      await res.body?.cancel();
      if (res.status === 204) return 'granted';
      if (res.status === 403) return 'refused';
      throw new ClaimsSourceUnavailable(`the user service answered ${res.status}`);
    },
    async fetch(input) {
      const res = await post('/admin/token-claims', input);
      const body = (await res.json().catch(() => undefined)) as unknown;
      if (res.status === 200 && isObject(body) && isObject(body.access_token) && isObject(body.id_token)) {
        return { kind: 'granted', session: { access_token: body.access_token, id_token: body.id_token } };
      }
      // 4xx: the session ended, belongs to someone else, or the user left the organisation.
      if (res.status >= 400 && res.status < 500) {
        const code =
          isObject(body) && typeof body.errorCode === 'string' ? body.errorCode : String(res.status);
        const message = isObject(body) && typeof body.message === 'string' ? body.message : undefined;
        return { kind: 'refused', reason: code, ...(message ? { message } : {}) };
      }
      throw new ClaimsSourceUnavailable(`the user service answered ${res.status}`);
    },
  };
}
