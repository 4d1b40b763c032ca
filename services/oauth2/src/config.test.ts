import { describe, expect, it } from 'vitest';
import { appUrls, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has the development defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      issuer: 'http://localhost:4444',
      publicPort: 4444,
      adminPort: 4445,
      refreshGraceSeconds: 5,
      ttl: { accessToken: 600, refreshToken: 2_592_000, authorizationCode: 60, grant: 7_776_000 },
      usersAdminUrl: undefined,
    });
    // The platform's own applications are first-party: the server grants their consent.
    expect(config.clients.every((c) => c.skip_consent === true)).toBe(true);
    expect(config.clients.map((c) => [c.client_id, c.origin])).toEqual([
      ['platform', 'http://localhost:4000'],
      ['magic', 'http://localhost:4001'],
    ]);
  });

  it('TRUST_PROXY takes a hop count or proxy addresses; true (trust any left-most address) is refused', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toEqual(['10.0.0.0/8']);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
  });

  it('refuses registration or metadata-document clients without a resource server they may get tokens for', () => {
    for (const env of [
      { OAUTH2_REGISTRATION: 'loopback' },
      { OAUTH2_CLIENT_ID_METADATA_DOCUMENTS: 'true' },
    ]) {
      expect(() => loadConfig(env)).toThrow(/need OAUTH2_RESOURCE_SERVERS/);
      const mcp = 'http://localhost:4466/mcp';
      expect(loadConfig({ ...env, OAUTH2_RESOURCE_SERVERS: mcp }).resourceServers).toEqual([mcp]);
    }
  });

  it('derives the app URLs of a client from its origin', () => {
    expect(appUrls({ client_id: 'platform', origin: 'http://localhost:4000' })).toMatchObject({
      redirectUri: 'http://localhost:4000/account/callback',
      postLogoutRedirectUri: 'http://localhost:4000/account/login',
      consent: 'http://localhost:4000/account/consent',
      logout: 'http://localhost:4000/account/logout',
    });
  });

  it('reads clients from OAUTH2_CLIENTS or APP_ORIGINS', () => {
    expect(
      loadConfig({ OAUTH2_CLIENTS: '[{"client_id":"x","origin":"https://x.example/ignored"}]' }).clients,
    ).toEqual([{ client_id: 'x', origin: 'https://x.example' }]);
    expect(loadConfig({ APP_ORIGINS: 'a=http://localhost:5000, b=http://localhost:5001' }).clients).toEqual([
      { client_id: 'a', origin: 'http://localhost:5000', skip_consent: true },
      { client_id: 'b', origin: 'http://localhost:5001', skip_consent: true },
    ]);
  });

  it('refresh tokens last 30 days idle and 90 days at most, from configuration', () => {
    expect(loadConfig({}).ttl).toMatchObject({ refreshToken: 30 * 86400, grant: 90 * 86400 });
    expect(loadConfig({ OAUTH2_REFRESH_TOKEN_TTL: '3600', OAUTH2_GRANT_TTL: '7200' }).ttl).toMatchObject({
      refreshToken: 3600,
      grant: 7200,
    });
  });

  it('derives the issuer from the public port and strips a trailing slash', () => {
    expect(loadConfig({ OAUTH2_PUBLIC_PORT: '5555' }).issuer).toBe('http://localhost:5555');
    expect(loadConfig({ OAUTH2_PUBLIC_URL: 'https://auth.example/' }).issuer).toBe('https://auth.example');
  });

  it.each([
    [{ OAUTH2_CLIENTS: 'not json' }],
    [{ OAUTH2_CLIENTS: '[]' }],
    [{ OAUTH2_CLIENTS: '[{"client_id":"a","origin":"x"},{"client_id":"a","origin":"y"}]' }],
    [{ APP_ORIGINS: 'nonsense' }],
    [{ OAUTH2_ACCESS_TOKEN_TTL: '-1' }],
    [{ OAUTH2_REFRESH_GRACE_SECONDS: '600' }],
    [{ OAUTH2_PUBLIC_URL: 'not a url' }],
  ])('refuses invalid configuration %j', (env) => {
    expect(() => loadConfig(env)).toThrow();
  });
});
