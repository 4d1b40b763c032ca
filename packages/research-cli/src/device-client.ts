/**
 * OAuth 2.0 device authorization (RFC 8628) against the platform's authorization server, with the
 * standard library only (fetch). Errors carry the server's `error` code.
 */

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export class OAuthError extends Error {
  readonly code: string;
  constructor(code: string, description: string) {
    super(description ? `${code}: ${description}` : code);
    this.name = 'OAuthError';
    this.code = code;
  }
}

export interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token?: string;
  id_token?: string;
  scope?: string;
}

type OAuthBody = Record<string, unknown> & { error?: unknown; error_description?: unknown };

async function postForm(
  url: string,
  form: Record<string, string>,
): Promise<{ status: number; body: OAuthBody }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: OAuthBody;
  try {
    body = text ? (JSON.parse(text) as OAuthBody) : {};
  } catch {
    body = {};
  }
  return { status: res.status, body };
}

function fail(body: OAuthBody, status: number): never {
  throw new OAuthError(
    typeof body?.error === 'string' ? body.error : `http_${status}`,
    typeof body?.error_description === 'string' ? body.error_description : '',
  );
}

export async function startDeviceAuthorization(
  issuer: string,
  clientId: string,
  scope = 'openid offline_access',
): Promise<DeviceAuthorization> {
  const { status, body } = await postForm(`${issuer}/oauth2/device/auth`, { client_id: clientId, scope });
  if (status !== 200 || typeof body.device_code !== 'string') fail(body, status);
  return body as unknown as DeviceAuthorization;
}

/**
 * Polls the token endpoint until the person approves or denies, or the code expires:
 * `authorization_pending` waits the interval, `slow_down` adds 5 s (RFC 8628 §3.5).
 */
export async function pollForTokens(
  issuer: string,
  clientId: string,
  auth: DeviceAuthorization,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<TokenResponse> {
  let interval = auth.interval ?? 5;
  const deadline = Date.now() + auth.expires_in * 1000;
  for (;;) {
    await sleep(interval * 1000);
    const { status, body } = await postForm(`${issuer}/oauth2/token`, {
      grant_type: DEVICE_GRANT,
      device_code: auth.device_code,
      client_id: clientId,
    });
    if (status === 200) return body as unknown as TokenResponse;
    if (body?.error === 'authorization_pending' && Date.now() < deadline) continue;
    if (body?.error === 'slow_down') {
      interval += 5;
      continue;
    }
    fail(body, status);
  }
}

export async function refreshTokens(
  issuer: string,
  clientId: string,
  refreshToken: string,
): Promise<TokenResponse> {
  const { status, body } = await postForm(`${issuer}/oauth2/token`, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: clientId,
  });
  if (status !== 200) fail(body, status);
  return body as unknown as TokenResponse;
}

/** RFC 7009: revoking the refresh token ends the grant (and its other tokens). */
export async function revokeToken(issuer: string, clientId: string, token: string): Promise<void> {
  const { status, body } = await postForm(`${issuer}/oauth2/revoke`, {
    token,
    token_type_hint: 'refresh_token',
    client_id: clientId,
  });
  if (status !== 200) fail(body, status);
}

/** The payload of a JWT, unverified (for display; resource servers verify against the JWKS). */
export function jwtClaims(token: string): Record<string, unknown> {
  const part = token.split('.')[1];
  if (!part) throw new Error('not a JWT');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;
}
