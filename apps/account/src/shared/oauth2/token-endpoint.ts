import { copy } from '../../copy.ts';
import { traceHeaders } from '../tracing/trace-context.ts';

/** The token endpoint's answer: the fields the app keeps. */
export interface TokenResponse {
  access_token: string;
  refresh_token?: string | null;
  expires_in?: number | null;
}

// POST {oauth2Url}/oauth2/token, form-encoded. Public client: no credentials, no secret.

/** The token endpoint refused the request or answered something that is not a token response. */
class TokenEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenEndpointError';
  }
}

export async function parseTokenResponse(res: Response): Promise<TokenResponse> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  const obj = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  if (typeof obj.error === 'string') {
    throw new TokenEndpointError(
      copy.errors.oauth2(obj.error, typeof obj.error_description === 'string' ? obj.error_description : ''),
    );
  }
  if (!res.ok) throw new TokenEndpointError(copy.errors.http(res.status, res.statusText));
  if (typeof obj.access_token !== 'string' || obj.access_token === '') {
    throw new TokenEndpointError(copy.errors.invalidTokenResponse);
  }
  return {
    access_token: obj.access_token,
    refresh_token: typeof obj.refresh_token === 'string' ? obj.refresh_token : null,
    expires_in: typeof obj.expires_in === 'number' ? obj.expires_in : null,
  };
}

async function post(
  oauth2Url: string,
  form: Record<string, string>,
  fetchImpl: typeof fetch,
): Promise<TokenResponse> {
  const res = await fetchImpl(new URL('/oauth2/token', oauth2Url).toString(), {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
      ...traceHeaders(),
    },
    body: new URLSearchParams(form).toString(),
  });
  return parseTokenResponse(res);
}

export function exchangeCode(
  input: { oauth2Url: string; clientId: string; code: string; redirectUri: string; codeVerifier: string },
  fetchImpl: typeof fetch = fetch,
): Promise<TokenResponse> {
  return post(
    input.oauth2Url,
    {
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
      client_id: input.clientId,
    },
    fetchImpl,
  );
}

export function refreshTokens(
  input: { oauth2Url: string; clientId: string; refreshToken: string },
  fetchImpl: typeof fetch = fetch,
): Promise<TokenResponse> {
  return post(
    input.oauth2Url,
    { grant_type: 'refresh_token', refresh_token: input.refreshToken, client_id: input.clientId },
    fetchImpl,
  );
}
