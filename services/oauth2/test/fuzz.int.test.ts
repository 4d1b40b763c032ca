import fc from 'fast-check';
import { hostileText, UNSTORABLE_SAMPLES, wellFormed } from '@acme/test-kit/hostile-text';
import { describe, expect, it } from 'vitest';
import { fastifyRoutes, sendPrototypeAttacks, type Answer } from '@acme/test-kit/prototype-attacks';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { ROUTES } from '../src/provider.ts';
import { useTestServer } from './harness.ts';

/** Request parsers never answer 5xx, whatever the input (NUL and lone surrogates included). */

const server = useTestServer();

const RUNS = 40;
const text = hostileText({ maxLength: 200 });
const json = fc.jsonValue({ maxDepth: 3 });

describe('fuzzing (0 crashes, 0 5xx)', () => {
  it('admin login/consent/logout endpoints answer < 500 for arbitrary bodies and challenges', async () => {
    const paths = [
      'login/accept?login_challenge=',
      'login/reject?login_challenge=',
      'consent/accept?consent_challenge=',
      'consent/reject?consent_challenge=',
      'logout/accept?logout_challenge=',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), text, json, async (path, challenge, body) => {
        const res = await fetch(
          `${server.admin}/admin/oauth2/auth/requests/${path}${encodeURIComponent(wellFormed(challenge))}`,
          { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
        );
        expect(res.status).toBeLessThan(500);
        const parsed = (await res.json()) as Record<string, unknown>;
        if (res.status >= 400) expect(parsed.error).toEqual(expect.any(String));
      }),
      { numRuns: RUNS },
    );
  });

  it('the token endpoint answers OAuth2 errors (< 500) for arbitrary form fields', async () => {
    const field = fc.constantFrom(
      'grant_type',
      'code',
      'code_verifier',
      'redirect_uri',
      'client_id',
      'refresh_token',
      'scope',
      'resource',
      'x',
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(field, text, { maxKeys: 6 }), async (form) => {
        const res = await fetch(`${server.publicUrl}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form).toString(),
        });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400)
          expect(((await res.json()) as { error: unknown }).error).toEqual(expect.any(String));
      }),
      { numRuns: RUNS },
    );
  });

  it('the authorization endpoint never answers 5xx for arbitrary query parameters', async () => {
    const field = fc.constantFrom(
      'client_id',
      'response_type',
      'redirect_uri',
      'scope',
      'state',
      'code_challenge',
      'code_challenge_method',
      'prompt',
      'max_age',
      'nonce',
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(field, text, { maxKeys: 8 }), async (query) => {
        const res = await fetch(`${server.publicUrl}/oauth2/auth?${new URLSearchParams(query).toString()}`, {
          redirect: 'manual',
        });
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('introspection never answers 5xx for arbitrary tokens', async () => {
    await fc.assert(
      fc.asyncProperty(text, async (token) => {
        const res = await fetch(`${server.admin}/admin/oauth2/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token }).toString(),
        });
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('NUL or a lone surrogate in a form, JSON body or query answers 400 invalid_request, never a 500', async () => {
    for (const bad of UNSTORABLE_SAMPLES) {
      const token = await fetch(`${server.publicUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: 'x',
          client_id: `platform${bad}`,
        }).toString(),
      });
      // A form is UTF-8 on the wire: only NUL survives the encoding.
      if (bad.includes('\u0000')) {
        expect(token.status, JSON.stringify(bad)).toBe(400);
        expect(await token.json()).toMatchObject({ error: 'invalid_request' });
      } else expect(token.status).toBeLessThan(500);
      const auth = await fetch(
        `${server.publicUrl}/oauth2/auth?${new URLSearchParams({ client_id: 'platform', state: `s${bad}` })}`,
        { redirect: 'manual' },
      );
      expect(auth.status).toBeLessThan(500);
      if (bad.includes('\u0000')) expect(auth.status).toBe(400);
      const admin = await fetch(`${server.admin}/admin/oauth2/auth/requests/login/accept?login_challenge=x`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ subject: `s${bad}` }),
      });
      expect(admin.status, JSON.stringify(bad)).toBe(400);
      expect(await admin.json()).toMatchObject({ error: 'invalid_request' });
    }
    const introspect = await fetch(`${server.admin}/admin/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=a%00b',
    });
    expect(introspect.status).toBe(400);
  });
});

describe('prototype keys, nested, dotted and in paths, to every route', () => {
  it('no request reaches Object.prototype, each key gets a 4xx {error, error_description}, and the server still works', async () => {
    // The admin server's route table, from an app built as the server under test was; the public
    // side is oidc-provider's, whose paths are the ROUTES table (and discovery).
    const built = await createApp({
      config: loadConfig({ OAUTH2_PUBLIC_URL: server.issuer }),
      db: server.db,
      logger: false,
    });
    await built.admin.ready();
    const adminRoutes = fastifyRoutes(built.admin);
    await built.admin.close();
    expect(adminRoutes.length).toBeGreaterThan(20);
    const publicRoutes = [...Object.values(ROUTES), '/.well-known/openid-configuration'].flatMap((url) =>
      ['GET', 'POST'].map((method) => ({ method, url })),
    );
    const answers: Answer[] = [
      ...(await sendPrototypeAttacks(server.admin, adminRoutes)),
      ...(await sendPrototypeAttacks(server.publicUrl, publicRoutes)),
    ];
    const oauthShaped = (body: unknown) =>
      typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string';
    const wrong = answers.filter(
      (a) =>
        a.prototype.length > 0 || a.status >= 500 || (a.namesKey && (a.status < 400 || !oauthShaped(a.body))),
    );
    expect(
      wrong.map(
        (a) =>
          `${a.route.method} ${a.route.url} ${a.request}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)} ${a.prototype.join(', ')}`,
      ),
    ).toEqual([]);

    // Afterwards: discovery and a client credentials-free admin read still answer.
    const discovery = await fetch(`${server.publicUrl}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(server.issuer);
    const clients = await fetch(`${server.admin}/admin/clients`);
    expect(clients.status).toBe(200);
    expect(Array.isArray(await clients.json())).toBe(true);
  }, 180_000);
});
