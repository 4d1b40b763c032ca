import { describe, expect, it } from 'vitest';
import { buildAuthorizeUrl, redirectUri } from './authorize-url.ts';

describe('buildAuthorizeUrl', () => {
  it('builds the Hydra authorize URL with PKCE S256 and openid offline_access', () => {
    const url = new URL(
      buildAuthorizeUrl({
        oauth2Url: 'http://localhost:4444',
        clientId: 'platform',
        origin: 'http://localhost:4000',
        state: 'state-123456',
        codeChallenge: 'challenge',
      }),
    );
    expect(url.origin + url.pathname).toBe('http://localhost:4444/oauth2/auth');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'platform',
      response_type: 'code',
      redirect_uri: 'http://localhost:4000/account/callback',
      state: 'state-123456',
      code_challenge: 'challenge',
      code_challenge_method: 'S256',
      scope: 'openid offline_access',
    });
  });

  it('uses origin + /account/callback as the redirect URI', () => {
    expect(redirectUri('http://localhost:4001')).toBe('http://localhost:4001/account/callback');
  });
});
