import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { DEMO_PASSWORD, seedDemo } from '../src/seed.ts';
import { platformAuthorizeUrl } from './auth-stack.ts';
import { Jar } from './jar.ts';
import {
  exchangeCode,
  passwordLogin,
  startRealStack,
  tokenRequest as postToken,
  whoami as sessionOf,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Refresh tokens end with what they stand for. The real identity service, user service and
 * authorization server run in process on one database; the authorization server knows the user
 * service's admin API, so first-party clients skip consent and every refresh re-checks the grant's
 * identity session and re-reads its claims.
 */

const APP_ORIGIN = 'http://localhost:4000';

describe('grants end with their identity session and user', () => {
  let stack: RealStack;
  let urls: RealStackUrls;
  let organisationId = '';
  let seq = 0;
  const identityAdmin = () => createIdentityAdminClient({ baseUrl: urls.identityAdmin });

  beforeAll(async () => {
    stack = await startRealStack({ appOrigin: APP_ORIGIN });
    urls = stack.urls;
    await seedDemo(urls.usersAdmin);
    const list = (await new Jar().fetch(`${urls.usersAdmin}/admin/users`)).body.users as any[];
    organisationId = list[0].organisationId;
  });
  afterAll(async () => {
    await stack.close();
  });

  async function newUser(role = 'member') {
    seq += 1;
    const created = await new Jar().fetch(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId,
        email: `grant-${seq}-${Date.now()}@acme.test`,
        firstName: 'Grant',
        lastName: `Tester${seq}`,
        role,
        password: DEMO_PASSWORD,
      },
    });
    expect(created.res.status).toBe(201);
    return created.body as { id: string; email: string; identityId: string };
  }

  /** Authorize → password login at the identity service → (consent skipped) → code → tokens. */
  async function signIn(email: string) {
    const jar = new Jar();
    const { url: authorizeUrl, verifier } = platformAuthorizeUrl(urls.issuer, APP_ORIGIN);
    const login = await jar.navigateToApp(authorizeUrl);
    const loginChallenge = login.searchParams.get('login_challenge')!;
    const submitted = await passwordLogin(jar, urls.identityPublic, loginChallenge, email);
    expect(submitted.res.status).toBe(422);
    const whoami = await sessionOf(jar, urls.identityPublic);
    // First-party client: no consent screen, straight to the callback.
    const callback = await jar.navigateToApp(submitted.body.redirect_browser_to);
    expect(callback.pathname).toBe('/account/callback');
    const token = await exchangeCode(urls.issuer, callback, verifier);
    expect(token.status).toBe(200);
    return { jar, session: whoami.body, tokens: token.body };
  }

  const tokenRequest = (form: Record<string, string>) => postToken(urls.issuer, form);

  const refresh = (refreshToken: string) =>
    tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'platform' });

  const ext = (accessToken: string) =>
    JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')).ext;

  async function introspect(token: string) {
    const res = await fetch(`${urls.oauth2Admin}/admin/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    return (await res.json()) as any;
  }

  /** The refresh is refused, and the grant with every token of it is gone. */
  async function expectGrantEnded(tokens: { refresh_token: string; access_token: string }) {
    const res = await refresh(tokens.refresh_token);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    expect(await introspect(tokens.refresh_token)).toEqual({ active: false });
  }

  it('first-party clients skip consent on the server; the grant refreshes while its session lives', async () => {
    const user = await newUser();
    const { tokens } = await signIn(user.email);
    expect(ext(tokens.access_token)).toEqual({
      user: {
        authenticationMode: 'ory',
        email: user.email,
        name: expect.stringMatching(/^Grant Tester\d+$/),
      },
      products: expect.any(Array),
      scopeGroups: [],
      role: 'member',
      organisation: { id: expect.any(String), name: 'Acme' },
      subscriptionStatus: 'subscribed',
    });
    const res = await refresh(tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(res.body.refresh_token).toMatch(/^ory_rt_/);
  });

  it('refresh after browser logout is refused: the grant ends with its identity session', async () => {
    const user = await newUser();
    const { jar, tokens } = await signIn(user.email);
    const logout = await jar.fetch(`${urls.identityPublic}/self-service/logout/browser`, {
      headers: { accept: 'application/json' },
    });
    expect(logout.res.status).toBe(200);
    const done = await jar.fetch(logout.body.logout_url, { headers: { accept: 'application/json' } });
    expect(done.res.status).toBeLessThan(400);
    await expectGrantEnded(tokens);
  });

  it('refresh after admin session revocation (DELETE /admin/identities/{id}/sessions) is refused', async () => {
    const user = await newUser();
    const { tokens } = await signIn(user.email);
    const revoked = await identityAdmin().deleteSessions(user.identityId);
    expect(revoked).toBe(true);
    await expectGrantEnded(tokens);
  });

  it('refresh after the identity is deactivated is refused', async () => {
    const user = await newUser();
    const { tokens } = await signIn(user.email);
    const patched = await identityAdmin().patchIdentity(user.identityId, [
      { op: 'replace', path: '/state', value: 'inactive' },
    ]);
    expect(patched?.state).toBe('inactive');
    await expectGrantEnded(tokens);
  });

  it('refresh after the identity is deleted is refused', async () => {
    const user = await newUser();
    const { tokens } = await signIn(user.email);
    const deleted = await identityAdmin().deleteIdentity(user.identityId);
    expect(deleted).toBe(true);
    await expectGrantEnded(tokens);
  });

  it('refresh after the user is removed from their organisation is refused, and their sessions are revoked', async () => {
    const user = await newUser();
    const { jar, tokens } = await signIn(user.email);
    const removed = await fetch(`${urls.usersAdmin}/admin/users/${user.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    const whoami = await jar.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.res.status).toBe(401);
    await expectGrantEnded(tokens);
    expect((await fetch(`${urls.usersAdmin}/admin/users/${user.id}`)).status).toBe(404);
  });

  it('a role change shows in ext at the next refresh', async () => {
    const user = await newUser('member');
    const { tokens } = await signIn(user.email);
    expect(ext(tokens.access_token).role).toBe('member');
    const changed = await new Jar().fetch(`${urls.usersAdmin}/admin/users/${user.id}`, {
      method: 'PATCH',
      json: { role: 'admin', scopeGroups: ['research'] },
    });
    expect(changed.res.status).toBe(200);
    const res = await refresh(tokens.refresh_token);
    expect(res.status).toBe(200);
    expect(ext(res.body.access_token)).toMatchObject({ role: 'admin', scopeGroups: ['research'] });
    // Introspection of the new refresh token reports the stored, fresh claims too.
    expect((await introspect(res.body.refresh_token)).ext).toMatchObject({ role: 'admin' });
  });

  it('the token-claims admin API refuses bad input and foreign sessions with {errorCode, message}', async () => {
    const user = await newUser();
    const other = await newUser();
    const { session } = await signIn(user.email);
    const post = (json: unknown) =>
      new Jar().fetch(`${urls.usersAdmin}/admin/token-claims`, { method: 'POST', json });
    const foreign = await post({
      identitySessionId: session.id,
      subject: other.identityId,
      purpose: 'refresh',
    });
    expect(foreign.res.status).toBe(403);
    expect(foreign.body).toEqual({ errorCode: 'SESSION_MISMATCH', message: expect.any(String) });
    const bad = await post({ identitySessionId: session.id });
    expect(bad.res.status).toBe(400);
    expect(bad.body.errorCode).toBe('INVALID_REQUEST');
    const unknown = await post({ identitySessionId: 'nope', subject: user.identityId, purpose: 'refresh' });
    expect(unknown.res.status).toBe(403);
  });

  it('PATCH and DELETE /admin/users/:id answer USER_NOT_FOUND for unknown users and refuse empty changes', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const patch = await new Jar().fetch(`${urls.usersAdmin}/admin/users/${missing}`, {
      method: 'PATCH',
      json: { role: 'admin' },
    });
    expect(patch.res.status).toBe(404);
    expect(patch.body.errorCode).toBe('USER_NOT_FOUND');
    const del = await fetch(`${urls.usersAdmin}/admin/users/not-a-uuid`, { method: 'DELETE' });
    expect(del.status).toBe(404);
    const user = await newUser();
    const empty = await new Jar().fetch(`${urls.usersAdmin}/admin/users/${user.id}`, {
      method: 'PATCH',
      json: {},
    });
    expect(empty.res.status).toBe(400);
    const badRole = await new Jar().fetch(`${urls.usersAdmin}/admin/users/${user.id}`, {
      method: 'PATCH',
      json: { role: 'emperor' },
    });
    expect(badRole.res.status).toBe(400);
  });
});
