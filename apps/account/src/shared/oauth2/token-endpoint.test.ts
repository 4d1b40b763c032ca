import { describe, expect, it, vi } from 'vitest';
import { exchangeCode, parseTokenResponse, refreshTokens } from './token-endpoint.ts';

function json(status: number, body: unknown, statusText = ''): Response {
  return new Response(JSON.stringify(body), {
    status,
    statusText,
    headers: { 'Content-Type': 'application/json' },
  });
}

describe('token endpoint', () => {
  it('posts the authorization_code grant form-encoded', async () => {
    const fetchImpl = vi.fn(async () =>
      json(200, { access_token: 'at', refresh_token: 'ory_rt_1', expires_in: 3600 }),
    );
    const res = await exchangeCode(
      {
        oauth2Url: 'http://localhost:4444',
        clientId: 'platform',
        code: 'ory_ac_1',
        redirectUri: 'http://localhost:4000/account/callback',
        codeVerifier: 'v',
      },
      fetchImpl as unknown as typeof fetch,
    );
    expect(res).toEqual({ access_token: 'at', refresh_token: 'ory_rt_1', expires_in: 3600 });
    const [url, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('http://localhost:4444/oauth2/token');
    expect(init.method).toBe('POST');
    expect((init.headers as Record<string, string>)['Content-Type']).toBe(
      'application/x-www-form-urlencoded',
    );
    expect(Object.fromEntries(new URLSearchParams(init.body as string))).toEqual({
      grant_type: 'authorization_code',
      code: 'ory_ac_1',
      redirect_uri: 'http://localhost:4000/account/callback',
      code_verifier: 'v',
      client_id: 'platform',
    });
    expect(init.credentials).toBeUndefined();
  });

  it('posts the refresh_token grant', async () => {
    const fetchImpl = vi.fn(async () => json(200, { access_token: 'at2' }));
    await refreshTokens(
      { oauth2Url: 'http://localhost:4444', clientId: 'magic', refreshToken: 'ory_rt_1' },
      fetchImpl as unknown as typeof fetch,
    );
    const [, init] = fetchImpl.mock.calls[0] as unknown as [string, RequestInit];
    expect(Object.fromEntries(new URLSearchParams(init.body as string))).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'ory_rt_1',
      client_id: 'magic',
    });
  });

  it('maps errors to the texts', async () => {
    await expect(
      parseTokenResponse(json(400, { error: 'invalid_grant', error_description: 'used' })),
    ).rejects.toThrow('OAuth2 error invalid_grant. used');
    await expect(
      parseTokenResponse(new Response('oops', { status: 502, statusText: 'Bad Gateway' })),
    ).rejects.toThrow('HTTP Error 502 Bad Gateway');
    await expect(parseTokenResponse(json(200, { token_type: 'bearer' }))).rejects.toThrow(
      'Invalid OAuth2 Token Response',
    );
  });
});
