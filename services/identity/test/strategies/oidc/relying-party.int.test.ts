import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_IDP_DEMO_PASSWORD, startOrgIdp, type OrgIdp } from '@acme/dev';
import { checkOutboundHost, type OutboundPolicy, type Resolve } from '@acme/service-kit/outbound';
import type { SsoProvider } from '../../../src/strategies/oidc/provider-directory.ts';
import { createRelyingParty, RelyingPartyError } from '../../../src/strategies/oidc/relying-party.ts';

// openid-client against the organisation IdP stand-in: what the identity service's oidc method
// relies on, including each refusal.

const REDIRECT = 'http://localhost:4433/self-service/methods/oidc/callback/globex';

/** Follows the provider's redirects with a cookie jar until they leave the provider. */
async function browse(url: string, init?: RequestInit, jar = new Map<string, string>()): Promise<string> {
  let next = url;
  let request = init;
  for (let i = 0; i < 10; i++) {
    const headers = new Headers(request?.headers);
    if (jar.size) headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(next, { ...request, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) return next;
    next = new URL(location, next).toString();
    if (next.startsWith(REDIRECT)) return next;
    request = undefined;
  }
  throw new Error('too many redirects');
}

async function signInAt(authorizeUrl: string, action: 'login' | 'cancel', email = 'hopper@globex.test') {
  const jar = new Map<string, string>();
  const page = await browse(authorizeUrl, undefined, jar);
  return browse(
    `${page}/${action}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password: ORG_IDP_DEMO_PASSWORD }),
    },
    jar,
  );
}

describe('oidc relying party (openid-client) against the organisation IdP stand-in', () => {
  let idp: OrgIdp;
  let provider: SsoProvider;
  // The development guard: the stand-in on loopback, over plain http (as under `npm start`).
  const development: OutboundPolicy = {
    httpHosts: ['localhost', '127.0.0.1'],
    allowPrivate: true,
    timeoutMs: 10_000,
  };
  const rp = createRelyingParty(development);

  beforeAll(async () => {
    idp = await startOrgIdp({
      port: 0,
      clients: [{ clientId: 'acme-platform', clientSecret: 'shh', redirectUris: [REDIRECT] }],
    });
    provider = {
      protocol: 'oidc',
      provider: 'globex',
      organisationId: '00000000-0000-4000-8000-000000000001',
      issuer: idp.issuer,
      clientId: 'acme-platform',
      clientSecret: 'shh',
      scopes: ['openid', 'email', 'profile'],
      claimMapping: {
        email: 'email',
        emailVerified: 'email_verified',
        firstName: 'given_name',
        lastName: 'family_name',
      },
      jit: true,
      userinfo: false,
      domains: ['globex.test'],
    };
  });
  afterAll(() => idp.close());

  const failure = async (p: Promise<unknown>) => {
    const error = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RelyingPartyError);
    return (error as RelyingPartyError).failure;
  };

  it('completes code + PKCE and returns validated claims with email and email_verified', async () => {
    const req = await rp.authorizationRequest(provider, REDIRECT);
    const url = new URL(req.url);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toBe(req.nonce);
    const back = await signInAt(req.url, 'login');
    const claims = await rp.finish(provider, new URL(back), req);
    expect(claims).toMatchObject({ email: 'hopper@globex.test', email_verified: true, aud: 'acme-platform' });
  });

  it('reads userinfo when the provider is configured for it', async () => {
    const withUserinfo = { ...provider, userinfo: true };
    const req = await rp.authorizationRequest(withUserinfo, REDIRECT);
    const claims = await rp.finish(withUserinfo, new URL(await signInAt(req.url, 'login')), req);
    expect(claims).toMatchObject({ email: 'hopper@globex.test', family_name: 'Hopper' });
  });

  it('reports the provider’s error=access_denied (Cancel)', async () => {
    const req = await rp.authorizationRequest(provider, REDIRECT);
    const back = await signInAt(req.url, 'cancel');
    expect(await failure(rp.finish(provider, new URL(back), req))).toEqual({
      reason: 'denied',
      error: 'access_denied',
    });
  });

  it('refuses a callback whose state is not the one sent', async () => {
    const req = await rp.authorizationRequest(provider, REDIRECT);
    const back = await signInAt(req.url, 'login');
    expect(await failure(rp.finish(provider, new URL(back), { ...req, state: 'another-state' }))).toEqual({
      reason: 'state',
    });
  });

  it('refuses a replayed code', async () => {
    const req = await rp.authorizationRequest(provider, REDIRECT);
    const back = new URL(await signInAt(req.url, 'login'));
    await rp.finish(provider, back, req);
    expect((await failure(rp.finish(provider, back, req))).reason).toBe('provider');
  });

  it('refuses an ID token for another audience', async () => {
    idp.faults.idTokenAudience = 'someone-else';
    try {
      const req = await rp.authorizationRequest(provider, REDIRECT);
      const back = await signInAt(req.url, 'login');
      expect(await failure(rp.finish(provider, new URL(back), req))).toEqual({ reason: 'token' });
    } finally {
      delete idp.faults.idTokenAudience;
    }
  });

  it('refuses an ID token whose signature does not verify with the published keys', async () => {
    idp.faults.wrongJwks = true;
    try {
      const req = await rp.authorizationRequest(provider, REDIRECT);
      const back = await signInAt(req.url, 'login');
      expect(await failure(rp.finish(provider, new URL(back), req))).toEqual({ reason: 'token' });
    } finally {
      delete idp.faults.wrongJwks;
    }
  });

  it('refuses a wrong nonce', async () => {
    const req = await rp.authorizationRequest(provider, REDIRECT);
    const back = await signInAt(req.url, 'login');
    expect(await failure(rp.finish(provider, new URL(back), { ...req, nonce: 'other' }))).toEqual({
      reason: 'token',
    });
  });

  it('picks up a rotated provider key straight away', async () => {
    const first = await rp.authorizationRequest(provider, REDIRECT);
    await rp.finish(provider, new URL(await signInAt(first.url, 'login')), first);
    const { kid } = await idp.rotateKeys({ dropPrevious: true });
    const req = await rp.authorizationRequest(provider, REDIRECT);
    const claims = await rp.finish(provider, new URL(await signInAt(req.url, 'login')), req);
    expect(claims.email).toBe('hopper@globex.test');
    expect(idp.currentKid()).toBe(kid);
  });

  describe('an unreachable provider', () => {
    let silent: Server;
    let silentUrl: string;
    beforeAll(async () => {
      // Accepts connections and never answers.
      silent = createServer(() => undefined);
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    });

    it('gives up after the time-out', async () => {
      const fast = createRelyingParty({ ...development, timeoutMs: 300 });
      expect(await failure(fast.authorizationRequest({ ...provider, issuer: silentUrl }, REDIRECT))).toEqual({
        reason: 'unreachable',
      });
    });

    it('reports a refused connection', async () => {
      expect(
        await failure(rp.authorizationRequest({ ...provider, issuer: 'http://127.0.0.1:9' }, REDIRECT)),
      ).toEqual({ reason: 'unreachable' });
    });
  });
  describe('server-side request forgery', () => {
    let inside: Server;
    let connections = 0;
    beforeAll(async () => {
      // An internal service on loopback: it answers a discovery document to anyone who connects.
      inside = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
      inside.on('connection', () => {
        connections += 1;
      });
      await new Promise<void>((r) => inside.listen(0, '127.0.0.1', r));
    });
    afterAll(async () => new Promise<void>((r) => inside.close(() => r())));

    it('a hostname that rebinds to a private address after the check is not connected to', async () => {
      // The attacker's DNS: a public address while the issuer is checked and saved, loopback after.
      let asked = 0;
      const resolve: Resolve = async () => {
        asked += 1;
        return [{ address: asked === 1 ? '203.0.113.7' : '127.0.0.1', family: 4 }];
      };
      const production: OutboundPolicy = {
        httpHosts: ['localhost'],
        allowPrivate: false,
        timeoutMs: 1000,
        resolve,
      };
      const issuer = `http://localhost:${(inside.address() as AddressInfo).port}`;
      await expect(checkOutboundHost(issuer, production)).resolves.toBeInstanceOf(URL);
      const guarded = createRelyingParty(production);
      expect(await failure(guarded.authorizationRequest({ ...provider, issuer }, REDIRECT))).toEqual({
        reason: 'unreachable',
      });
      expect(asked).toBe(2);
      expect(connections).toBe(0);
    });
  });
});
