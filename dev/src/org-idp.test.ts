import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_IDP_DEMO_PASSWORD, startOrgIdp, type OrgIdp } from './org-idp.ts';

const REDIRECT = 'http://localhost:4433/self-service/methods/oidc/callback/globex';

/** A tiny browser: follows nothing by itself, keeps cookies per name. */
class Browser {
  cookies = new Map<string, string>();
  async go(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
  /** Follows redirects until one leaves `origin`; returns that URL or the final page. */
  async follow(url: string, origin: string, init?: RequestInit): Promise<{ url: string; res: Response }> {
    let res = await this.go(url, init);
    let current = url;
    for (let i = 0; i < 10 && res.status >= 300 && res.status < 400; i++) {
      current = new URL(res.headers.get('location')!, current).toString();
      if (new URL(current).origin !== origin) return { url: current, res };
      res = await this.go(current);
    }
    return { url: current, res };
  }
}

let idp: OrgIdp;
let config: client.Configuration;

beforeAll(async () => {
  idp = await startOrgIdp({
    port: 0,
    clients: [{ clientId: 'acme', clientSecret: 'acme-secret', redirectUris: [REDIRECT] }],
  });
  config = await client.discovery(new URL(idp.issuer), 'acme', 'acme-secret', undefined, {
    execute: [client.allowInsecureRequests],
  });
  client.enableNonRepudiationChecks(config);
});
afterAll(() => idp.close());

async function authorize(browser: Browser) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  const { url: page, res } = await browser.follow(url.toString(), idp.issuer);
  return { verifier, state, nonce, page, res };
}

async function signIn(browser: Browser, page: string, email: string, password: string) {
  return browser.follow(`${page}/login`, idp.issuer, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }),
  });
}

describe('organisation identity provider stand-in', () => {
  it('publishes discovery with code, PKCE S256 and a JWKS', async () => {
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(idp.issuer);
    expect(meta.response_types_supported).toEqual(['code']);
    expect(meta.code_challenge_methods_supported).toContain('S256');
    const jwks = (await (await fetch(meta.jwks_uri!)).json()) as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys[0]!.kid).toBe(idp.currentKid());
    expect(jwks.keys[0]!.d).toBeUndefined();
  });

  it('signs a seeded user in through its own page and issues an ID token with email and email_verified', async () => {
    const browser = new Browser();
    const { verifier, state, nonce, page, res } = await authorize(browser);
    const html = await res.text();
    expect(html).toContain('name="email"');
    expect(html).toContain('name="password"');
    expect(html).toContain('>Sign in</button>');
    expect(html).toContain('>Cancel</button>');

    const back = await signIn(browser, page, 'Hopper@Globex.test', ORG_IDP_DEMO_PASSWORD);
    expect(back.url.startsWith(REDIRECT)).toBe(true);
    const tokens = await client.authorizationCodeGrant(config, new URL(back.url), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const claims = tokens.claims()!;
    expect(claims.email).toBe('hopper@globex.test');
    expect(claims.email_verified).toBe(true);
    expect(claims.aud).toBe('acme');
    expect(claims.given_name).toBe('Grace');
  });

  it('shows an error for a wrong password and stays on its page', async () => {
    const browser = new Browser();
    const { page } = await authorize(browser);
    const again = await signIn(browser, page, 'hopper@globex.test', 'wrong');
    expect(again.res.status).toBe(200);
    expect(await again.res.text()).toContain('The email or password is incorrect.');
  });

  it('answers Cancel with error=access_denied and the state', async () => {
    const browser = new Browser();
    const { page, state } = await authorize(browser);
    const back = await browser.follow(`${page}/cancel`, idp.issuer, { method: 'POST' });
    const url = new URL(back.url);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('state')).toBe(state);
  });

  it('refuses an authorization request without PKCE', async () => {
    const url = client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'openid', state: 'x' });
    const { url: back } = await new Browser().follow(url.toString(), idp.issuer);
    expect(new URL(back).searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses a wrong client secret at the token endpoint', async () => {
    const browser = new Browser();
    const { verifier, state, page } = await authorize(browser);
    const back = await signIn(browser, page, 'lovelace@globex.test', ORG_IDP_DEMO_PASSWORD);
    const wrong = await client.discovery(new URL(idp.issuer), 'acme', 'not-the-secret', undefined, {
      execute: [client.allowInsecureRequests],
    });
    await expect(
      client.authorizationCodeGrant(wrong, new URL(back.url), {
        pkceCodeVerifier: verifier,
        expectedState: state,
      }),
    ).rejects.toMatchObject({ error: 'invalid_client' });
  });

  it('signs with a new key after rotation (admin endpoint) and publishes it', async () => {
    const before = idp.currentKid();
    const rotated = await fetch(`${idp.issuer}/admin/rotate-keys`, { method: 'POST' });
    const { kid } = (await rotated.json()) as { kid: string };
    expect(idp.currentKid()).toBe(kid);
    expect(kid).not.toBe(before);
    const browser = new Browser();
    const { verifier, state, nonce, page } = await authorize(browser);
    const back = await signIn(browser, page, 'hopper@globex.test', ORG_IDP_DEMO_PASSWORD);
    // A fresh configuration has no cached JWKS, like a relying party after its cache expired.
    const fresh = await client.discovery(new URL(idp.issuer), 'acme', 'acme-secret', undefined, {
      execute: [client.allowInsecureRequests],
    });
    client.enableNonRepudiationChecks(fresh);
    const tokens = await client.authorizationCodeGrant(fresh, new URL(back.url), {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as {
      kid: string;
    };
    expect(header.kid).toBe(kid);
  });
});
