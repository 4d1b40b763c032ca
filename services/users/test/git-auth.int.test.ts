import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { startStandIns } from '@acme/dev';
import type { StandIns } from '@acme/dev';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { UNREACHABLE_URL, http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const APP = 'http://localhost:4000';

/** What a browser does on the host's authorize page: read its form, submit it, stop at the redirect. */
async function authorizeAtHost(authenticationUrl: string, login = 'octo-dev'): Promise<URL> {
  const page = await fetch(authenticationUrl);
  expect(page.status).toBe(200);
  const html = await page.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
  const form = new URLSearchParams();
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    form.set(name!, value!.replace(/&amp;/g, '&').replace(/&quot;/g, '"'));
  }
  form.set('login', login);
  form.set('decision', 'allow');
  const submitted = await fetch(new URL(action, authenticationUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    redirect: 'manual',
  });
  expect(submitted.status).toBe(302);
  return new URL(submitted.headers.get('location')!);
}

describe('git-auth: linking a source-code-host account (GitHub-like stand-in)', () => {
  let identityService: IdentityUnderTest;
  let standIns: StandIns;
  let svc: TestUsersService;
  let orgId: string;

  beforeAll(async () => {
    identityService = await startIdentityUnderTest();
    standIns = await startStandIns({ httpPort: 0, smtpPort: 0 });
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identityService.adminUrl,
        IDENTITY_PUBLIC_URL: identityService.publicUrl,
        GIT_OAUTH_AUTHORIZE_URL: `${standIns.urls.github}/login/oauth/authorize`,
        GIT_OAUTH_TOKEN_URL: `${standIns.urls.github}/login/oauth/access_token`,
        GIT_API_URL: standIns.urls.githubApi,
      },
    });
    orgId = (
      (
        await http(`${svc.adminUrl}/admin/organisations`, {
          method: 'POST',
          json: { name: 'Acme', domains: ['acme.test'], products: [] },
        })
      ).body as any
    ).id;
  });
  afterAll(async () => {
    await svc.close();
    await standIns.close();
    await identityService.close();
  });
  beforeEach(() => {
    identityService.requests.length = 0;
  });

  let seq = 0;
  async function gitUser() {
    seq += 1;
    const inv = (
      await http(`${svc.adminUrl}/admin/invitations`, {
        method: 'POST',
        json: {
          organisationId: orgId,
          email: `g${seq}@acme.test`,
          firstName: 'G',
          lastName: 'U',
          role: 'member',
          isGitUser: true,
        },
      })
    ).body as any;
    return { ...inv, cookie: await identityService.signIn(inv.identityId) };
  }
  const post = (svcUrl: string, path: string, cookie: string | undefined, json: unknown, origin = APP) =>
    http(`${svcUrl}${path}`, {
      method: 'POST',
      headers: { ...(cookie ? { cookie } : {}), origin },
      json,
    });
  const initialise = (cookie: string | undefined, json: unknown = { flow: 'flow-1' }, origin = APP) =>
    post(svc.publicUrl, '/git-auth/initialise', cookie, json, origin);
  const complete = (cookie: string | undefined, json: unknown) =>
    post(svc.publicUrl, '/git-auth/complete', cookie, json);

  it('initialise answers the host authorize URL with a state bound to the caller and flow', async () => {
    const user = await gitUser();
    const res = await initialise(user.cookie, { flow: 'callback-flow' }, 'http://localhost:4001');
    expect(res.status).toBe(200);
    const url = new URL((res.body as any).authenticationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${standIns.urls.github}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe('dev-client');
    // The MAGIC app's own callback: the caller's origin, when it is an app origin.
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:4001/account/callback');
    const state = url.searchParams.get('state')!;
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await sql<any>`select * from git_auth_states where user_id = ${user.userId}`.execute(
      svc.db.kysely,
    );
    expect(rows.rows).toHaveLength(1);
    expect(rows.rows[0].flow).toBe('callback-flow');
    expect(JSON.stringify(rows.rows)).not.toContain(state);
    expect(new Date(rows.rows[0].expires_at).getTime() - new Date(rows.rows[0].created_at).getTime()).toBe(
      600_000,
    );

    const other = await initialise(user.cookie, { flow: 'f' }, 'http://evil.test');
    expect(new URL((other.body as any).authenticationUrl).searchParams.get('redirect_uri')).toBe(
      `${APP}/account/callback`,
    );
  });

  it('completes a real OAuth round trip: the account is linked and gitProviderConnected is set', async () => {
    const user = await gitUser();
    const started = await initialise(user.cookie);
    const callback = await authorizeAtHost((started.body as any).authenticationUrl);
    expect(`${callback.origin}${callback.pathname}`).toBe(`${APP}/account/callback`);
    const code = callback.searchParams.get('code')!;
    const state = callback.searchParams.get('state')!;
    expect(code).not.toMatch(/^ory/);

    const done = await complete(user.cookie, { code, state });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ connected: true, login: 'octo-dev' });
    expect((await identityService.identity(user.identityId)).traits.onboarding.gitProviderConnected).toBe(
      true,
    );
    const links = await sql<any>`select * from git_links where user_id = ${user.userId}`.execute(
      svc.db.kysely,
    );
    expect(links.rows).toEqual([
      expect.objectContaining({ provider: 'github', host_user_id: '1001', login: 'octo-dev' }),
    ]);
    expect(JSON.stringify(links.rows)).not.toContain('gho_');

    // The state is spent: the same answer cannot be replayed.
    const replay = await complete(user.cookie, { code, state });
    expect(replay.status).toBe(400);
    expect((replay.body as any).errorCode).toBe('INVALID_STATE');
  });

  it('git link without state is refused: an attacker’s host code cannot be linked to a victim', async () => {
    const victim = await gitUser();
    // The victim has a connection pending (started, not finished) …
    await initialise(victim.cookie);
    // … and is made to post the attacker's host code without a state.
    const attacker = await gitUser();
    const attackerStart = await initialise(attacker.cookie);
    const attackerCallback = await authorizeAtHost((attackerStart.body as any).authenticationUrl, 'mallory');
    const forced = await complete(victim.cookie, { code: attackerCallback.searchParams.get('code') });
    expect(forced.status).toBe(400);
    expect((forced.body as any).errorCode).toBe('INVALID_REQUEST');
    // With the attacker's state, it is not the victim's session's state either.
    const withState = await complete(victim.cookie, {
      code: attackerCallback.searchParams.get('code'),
      state: attackerCallback.searchParams.get('state'),
    });
    expect((withState.body as any).errorCode).toBe('INVALID_STATE');
    expect((await identityService.identity(victim.identityId)).traits.onboarding.gitProviderConnected).toBe(
      false,
    );
  });

  it('git link state is bound to the session that started it', async () => {
    const user = await gitUser();
    const started = await initialise(user.cookie);
    const callback = await authorizeAtHost((started.body as any).authenticationUrl, 'mona');
    // Same user, another session (another browser): refused, and the state is not spent by it.
    const otherSession = await identityService.signIn(user.identityId);
    const elsewhere = await complete(otherSession, {
      code: callback.searchParams.get('code'),
      state: callback.searchParams.get('state'),
    });
    expect((elsewhere.body as any).errorCode).toBe('INVALID_STATE');
    const done = await complete(user.cookie, {
      code: callback.searchParams.get('code'),
      state: callback.searchParams.get('state'),
    });
    expect(done.body).toEqual({ connected: true, login: 'mona' });
  });

  it('works across instances: started on one, completed on another (state in PostgreSQL)', async () => {
    const other = await startTestService({ db: svc.db, clock: svc.clock, env: { ...svc.envUsed } });
    try {
      const user = await gitUser();
      const started = await initialise(user.cookie);
      const callback = await authorizeAtHost((started.body as any).authenticationUrl);
      const done = await post(other.publicUrl, '/git-auth/complete', user.cookie, {
        code: callback.searchParams.get('code'),
        state: callback.searchParams.get('state'),
      });
      expect(done.body).toEqual({ connected: true, login: 'octo-dev' });
    } finally {
      await other.close();
    }
  });

  it('passes on host refusals as 400 GIT_AUTH_FAILED with the host message; the flow must restart', async () => {
    const user = await gitUser();
    const started = await initialise(user.cookie);
    const state = new URL((started.body as any).authenticationUrl).searchParams.get('state');
    const bad = await complete(user.cookie, { code: 'deadbeefdeadbeefdead', state });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      errorCode: 'GIT_AUTH_FAILED',
      message: 'bad_verification_code: The code passed is incorrect or expired.',
    });
    expect((await identityService.identity(user.identityId)).traits.onboarding.gitProviderConnected).toBe(
      false,
    );
    const again = await complete(user.cookie, { code: 'deadbeefdeadbeefdead', state });
    expect((again.body as any).errorCode).toBe('INVALID_STATE');
  });

  it('refuses codes of the authorization server, bad bodies, strangers and stale or foreign states', async () => {
    const user = await gitUser();
    for (const code of ['ory_ac_abc', 'ory', 'ORY_ac_x']) {
      const res = await complete(undefined, { code, state: 's' });
      expect(res.status, code).toBe(400);
      expect(res.body).toEqual({ errorCode: 'INVALID_CODE', message: expect.any(String) });
    }
    for (const json of [
      {},
      { code: '' },
      { code: 42 },
      { code: 'abc', extra: 1 },
      { code: 'abc' },
      { code: 'abc', state: '' },
      { code: 'a'.repeat(600) },
      null,
      'code',
    ]) {
      const res = await complete(user.cookie, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
    }
    for (const json of [{}, { flow: '' }, { flow: 7 }, { flow: 'x', other: true }, []]) {
      const res = await initialise(user.cookie, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
    }
    expect((await initialise(undefined)).status).toBe(401);
    expect((await complete(undefined, { code: 'abc', state: 's' })).status).toBe(401);
    expect((await complete('ory_kratos_session=forged', { code: 'abc', state: 's' })).status).toBe(401);

    // Nothing started.
    const fresh = await gitUser();
    const none = await complete(fresh.cookie, { code: 'abc', state: 'never-issued' });
    expect(none.status).toBe(400);
    expect((none.body as any).errorCode).toBe('INVALID_STATE');

    // Someone else's state.
    const started = await initialise(user.cookie);
    const state = new URL((started.body as any).authenticationUrl).searchParams.get('state');
    const foreign = await complete(fresh.cookie, { code: 'abc', state });
    expect((foreign.body as any).errorCode).toBe('INVALID_STATE');
    const wrong = await complete(user.cookie, { code: 'abc', state: 'not-the-state' });
    expect((wrong.body as any).errorCode).toBe('INVALID_STATE');

    // Expired after 10 minutes.
    svc.clock.advance(10 * 60_000 + 1);
    try {
      const late = await complete(user.cookie, { code: 'abc', state });
      expect((late.body as any).errorCode).toBe('INVALID_STATE');
    } finally {
      svc.clock.advance(-(10 * 60_000 + 1));
    }
    const wrongType = await http(`${svc.publicUrl}/git-auth/complete`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie: user.cookie },
      body: 'code=abc',
    });
    expect(wrongType.status).toBe(415);
  });

  it('answers 502 when the host cannot be reached and GIT_AUTH_FAILED on wrong client credentials', async () => {
    const env = {
      IDENTITY_ADMIN_URL: identityService.adminUrl,
      IDENTITY_PUBLIC_URL: identityService.publicUrl,
      GIT_API_URL: standIns.urls.githubApi,
    };
    const down = await startTestService({
      db: svc.db,
      clock: svc.clock,
      env: { ...env, GIT_OAUTH_TOKEN_URL: UNREACHABLE_URL },
    });
    const secret = await startTestService({
      db: svc.db,
      clock: svc.clock,
      env: {
        ...env,
        GIT_OAUTH_TOKEN_URL: `${standIns.urls.github}/login/oauth/access_token`,
        GIT_CLIENT_SECRET: 'wrong',
      },
    });
    try {
      const user = await gitUser();
      const stateOf = (r: { body: unknown }) =>
        new URL((r.body as any).authenticationUrl).searchParams.get('state');
      const first = await post(down.publicUrl, '/git-auth/initialise', user.cookie, { flow: 'f' });
      const res = await post(down.publicUrl, '/git-auth/complete', user.cookie, {
        code: 'abc',
        state: stateOf(first),
      });
      expect(res.status).toBe(502);
      expect((res.body as any).errorCode).toBe('UPSTREAM_ERROR');

      const second = await post(secret.publicUrl, '/git-auth/initialise', user.cookie, { flow: 'f' });
      const refused = await post(secret.publicUrl, '/git-auth/complete', user.cookie, {
        code: 'abc',
        state: stateOf(second),
      });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        errorCode: 'GIT_AUTH_FAILED',
        message: expect.stringContaining('incorrect_client_credentials'),
      });
    } finally {
      await down.close();
      await secret.close();
    }
  });

  it('unlinking needs a privileged session: a recent sign-in unlinks, an older one gets REAUTHENTICATION_REQUIRED', async () => {
    const user = await gitUser();
    const started = await initialise(user.cookie);
    const callback = await authorizeAtHost((started.body as any).authenticationUrl);
    const code = callback.searchParams.get('code')!;
    const state = callback.searchParams.get('state')!;
    expect((await complete(user.cookie, { code, state })).status).toBe(200);
    const unlink = (cookie: string | undefined) =>
      http(`${svc.publicUrl}/git-auth`, {
        method: 'DELETE',
        headers: { ...(cookie ? { cookie } : {}), origin: APP },
      });

    expect((await unlink(undefined)).status).toBe(401);
    // The app calls it cross-origin: the preflight allows DELETE from an app origin.
    const preflight = await fetch(`${svc.publicUrl}/git-auth`, {
      method: 'OPTIONS',
      headers: { origin: APP, 'access-control-request-method': 'DELETE' },
    });
    expect(preflight.headers.get('access-control-allow-methods')).toContain('DELETE');
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP);

    // The session signed in more than PRIVILEGED_SESSION_MAX_AGE (1 h) ago: refused, nothing changes.
    const saved = svc.clock.now();
    svc.clock.set(Date.now() + 61 * 60_000);
    try {
      const stale = await unlink(user.cookie);
      expect(stale.status).toBe(403);
      expect((stale.body as any).errorCode).toBe('REAUTHENTICATION_REQUIRED');
      const rows = await sql<any>`select * from git_links where user_id = ${user.userId}`.execute(
        svc.db.kysely,
      );
      expect(rows.rows).toHaveLength(1);
    } finally {
      svc.clock.set(saved);
    }

    const res = await unlink(user.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ connected: false, removed: true });
    const rows = await sql<any>`select * from git_links where user_id = ${user.userId}`.execute(
      svc.db.kysely,
    );
    expect(rows.rows).toHaveLength(0);
    expect((await identityService.identity(user.identityId)).traits.onboarding.gitProviderConnected).toBe(
      false,
    );
  });
});
