import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { fetchOnceMore } from '@acme/service-kit/once-more';
import { requestIdHeaders } from '@acme/service-kit/request-id';
import { IdentityError } from '../errors/identity-error.ts';

interface LoginRequest {
  challenge: string;
  skip: boolean;
  subject: string;
  request_url?: string;
  client?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface HydraClient {
  getLoginRequest(challenge: string): Promise<LoginRequest>;
  acceptLoginRequest(challenge: string, body: Record<string, unknown>): Promise<{ redirect_to: string }>;
}

/** Minimal client for the authorization server's admin API (Hydra-compatible). */
export function createHydraClient(
  adminUrl: string,
  fetchImpl: typeof fetch = fetch,
  adminKey?: string,
): HydraClient {
  async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    // Reading a login request and accepting it (which sets the request's result) may be received
    // twice: sent once more when the connection fails before an answer (a rolling restart).
    const signal = AbortSignal.timeout(10_000);
    let res: Response;
    try {
      res = await fetchOnceMore(
        () =>
          fetchImpl(`${adminUrl}${path}`, {
            method,
            headers: {
              accept: 'application/json',
              ...adminAuthHeaders(adminKey),
              ...requestIdHeaders(),
              ...(body ? { 'content-type': 'application/json' } : {}),
            },
            ...(body ? { body: JSON.stringify(body) } : {}),
            signal,
          }),
        signal,
      );
    } catch {
      throw new IdentityError(502, { reason: 'The OAuth 2.0 authorization server could not be reached.' });
    }
    const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const status = res.status === 404 || res.status === 410 ? res.status : res.status < 500 ? 400 : 502;
      const desc =
        typeof json.error_description === 'string'
          ? json.error_description
          : String(json.error ?? res.status);
      throw new IdentityError(status, {
        reason: `Unable to get the OAuth 2.0 login request: ${desc.slice(0, 200)}`,
      });
    }
    return json;
  }
  return {
    async getLoginRequest(challenge) {
      const r = await call(
        'GET',
        `/admin/oauth2/auth/requests/login?login_challenge=${encodeURIComponent(challenge)}`,
      );
      return {
        ...r,
        challenge: String(r.challenge ?? challenge),
        skip: r.skip === true,
        subject: String(r.subject ?? ''),
      };
    },
    async acceptLoginRequest(challenge, body) {
      const r = await call(
        'PUT',
        `/admin/oauth2/auth/requests/login/accept?login_challenge=${encodeURIComponent(challenge)}`,
        body,
      );
      if (typeof r.redirect_to !== 'string') {
        throw new IdentityError(502, { reason: 'The authorization server returned no redirect_to.' });
      }
      return { redirect_to: r.redirect_to };
    },
  };
}
