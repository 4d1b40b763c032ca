import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandIns, type StandIns } from './index.ts';
import { loadConfig } from './config.ts';

class ManualClock {
  t = Date.now();
  now(): Date {
    return new Date(this.t);
  }
}

const APP_CALLBACK = 'http://localhost:4000/account/git-callback';

let standIns: StandIns;
const clock = new ManualClock();

beforeAll(async () => {
  standIns = await startStandIns({
    httpPort: 0,
    smtpPort: 0,
    github: {
      clients: [
        { clientId: 'dev-client', clientSecret: 'dev-secret' },
        { clientId: 'strict', clientSecret: 's3cret', redirectUris: ['http://localhost:4000/account/'] },
      ],
      clock,
    },
  });
});
afterAll(() => standIns.close());

const authorizeUrl = (params: Record<string, string>) =>
  `${standIns.urls.github}/login/oauth/authorize?${new URLSearchParams(params)}`;

async function approve(fields: Record<string, string>): Promise<Response> {
  return fetch(`${standIns.urls.github}/login/oauth/authorize`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
}

async function codeFor(fields: Record<string, string> = {}): Promise<string> {
  const res = await approve({
    client_id: 'dev-client',
    redirect_uri: APP_CALLBACK,
    state: 'st-1',
    scope: 'read:user user:email',
    ...fields,
  });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  return location.searchParams.get('code')!;
}

async function exchange(body: Record<string, unknown>): Promise<Record<string, string>> {
  const res = await fetch(`${standIns.urls.github}/login/oauth/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, string>;
}

describe('GitHub-like OAuth stand-in: authorize, code and token', () => {
  it('shows an authorize page with a plain form and no script', async () => {
    const res = await fetch(
      authorizeUrl({
        client_id: 'dev-client',
        redirect_uri: APP_CALLBACK,
        state: '"><script>x</script>',
        scope: 'read:user',
      }),
    );
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    const html = await res.text();
    expect(html).not.toContain('<script');
    expect(html).toContain('<form method="post" action="/github/login/oauth/authorize">');
    expect(html).toContain('name="login" autocomplete="username" value="octo-dev"');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).toContain('>Authorize</button>');
  });

  it('runs authorize → code → token → user', async () => {
    const res = await approve({
      client_id: 'dev-client',
      redirect_uri: `${APP_CALLBACK}?keep=1`,
      state: 'abc',
      scope: 'read:user',
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(APP_CALLBACK);
    expect(location.searchParams.get('keep')).toBe('1');
    expect(location.searchParams.get('state')).toBe('abc');
    const code = location.searchParams.get('code')!;
    expect(code).toMatch(/^[0-9a-f]{20}$/);
    expect(code.startsWith('ory')).toBe(false);

    const token = await exchange({
      client_id: 'dev-client',
      client_secret: 'dev-secret',
      code,
      redirect_uri: `${APP_CALLBACK}?keep=1`,
    });
    expect(token).toEqual({
      access_token: expect.stringMatching(/^gho_[A-Za-z0-9]{36}$/),
      token_type: 'bearer',
      scope: 'read:user',
    });

    const user = await fetch(`${standIns.urls.githubApi}/user`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(user.status).toBe(200);
    expect(user.headers.get('x-oauth-scopes')).toBe('read:user');
    expect(await user.json()).toEqual({
      login: 'octo-dev',
      id: 1001,
      name: 'Octo Dev',
      email: 'octo-dev@example.com',
      type: 'User',
    });
    const emails = await fetch(`${standIns.urls.githubApi}/user/emails`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    expect(await emails.json()).toEqual([
      { email: 'octo-dev@example.com', primary: true, verified: true, visibility: 'public' },
    ]);
    // GitHub's older "token" scheme works as well.
    const again = await fetch(`${standIns.urls.githubApi}/user`, {
      headers: { authorization: `token ${token.access_token}` },
    });
    expect(again.status).toBe(200);
  });

  it('refuses a replayed code', async () => {
    const code = await codeFor();
    const first = await exchange({ client_id: 'dev-client', client_secret: 'dev-secret', code });
    expect(first.access_token).toBeTruthy();
    const second = await exchange({ client_id: 'dev-client', client_secret: 'dev-secret', code });
    expect(second).toMatchObject({ error: 'bad_verification_code' });
    expect(second.access_token).toBeUndefined();
  });

  it('refuses unknown and expired codes', async () => {
    expect(
      await exchange({ client_id: 'dev-client', client_secret: 'dev-secret', code: 'ory_ac_nope' }),
    ).toMatchObject({
      error: 'bad_verification_code',
    });
    expect(await exchange({ client_id: 'dev-client', client_secret: 'dev-secret' })).toMatchObject({
      error: 'bad_verification_code',
    });
    const code = await codeFor();
    clock.t += 10 * 60_000 + 1;
    expect(await exchange({ client_id: 'dev-client', client_secret: 'dev-secret', code })).toMatchObject({
      error: 'bad_verification_code',
    });
  });
});

describe('GitHub-like OAuth stand-in: client credentials, logins and refusals', () => {
  it('refuses wrong client credentials, another client’s code and a different redirect_uri', async () => {
    const code = await codeFor();
    expect(await exchange({ client_id: 'dev-client', client_secret: 'wrong', code })).toMatchObject({
      error: 'incorrect_client_credentials',
    });
    expect(await exchange({ client_id: 'strict', client_secret: 's3cret', code })).toMatchObject({
      error: 'bad_verification_code',
    });
    expect(
      await exchange({
        client_id: 'dev-client',
        client_secret: 'dev-secret',
        code,
        redirect_uri: 'http://localhost:4000/other',
      }),
    ).toMatchObject({ error: 'redirect_uri_mismatch' });
  });

  it('takes a form body and answers form-encoded without Accept: application/json, like GitHub', async () => {
    const code = await codeFor();
    const res = await fetch(`${standIns.urls.github}/login/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'dev-client', client_secret: 'dev-secret', code }),
    });
    expect(res.headers.get('content-type')).toContain('application/x-www-form-urlencoded');
    const body = new URLSearchParams(await res.text());
    expect(body.get('access_token')).toMatch(/^gho_/);
    expect(body.get('token_type')).toBe('bearer');
  });

  it('accepts client credentials by HTTP Basic', async () => {
    const code = await codeFor();
    const res = await fetch(`${standIns.urls.github}/login/oauth/access_token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: `Basic ${Buffer.from('dev-client:dev-secret').toString('base64')}`,
      },
      body: JSON.stringify({ code }),
    });
    expect(((await res.json()) as { access_token?: string }).access_token).toMatch(/^gho_/);
  });

  it('lets the tester choose the login', async () => {
    const code = await codeFor({ login: 'someone-else' });
    const token = await exchange({ client_id: 'dev-client', client_secret: 'dev-secret', code });
    const user = await fetch(`${standIns.urls.githubApi}/user`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    });
    const body = (await user.json()) as { login: string; id: number; email: string };
    expect(body.login).toBe('someone-else');
    expect(body.id).toBeGreaterThan(1001);
    expect(body.email).toBe('someone-else@example.com');

    const bad = await approve({ client_id: 'dev-client', redirect_uri: APP_CALLBACK, login: '<bad login>' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('That is not a valid login.');
  });

  it('redirects a denial with access_denied and the state', async () => {
    const res = await approve({
      client_id: 'dev-client',
      redirect_uri: APP_CALLBACK,
      state: 's',
      decision: 'deny',
    });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('s');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('refuses unknown clients and redirect URIs it must not send codes to', async () => {
    expect((await fetch(authorizeUrl({ client_id: 'nope', redirect_uri: APP_CALLBACK }))).status).toBe(404);
    expect((await fetch(authorizeUrl({ redirect_uri: APP_CALLBACK }))).status).toBe(400);
    expect(
      (await fetch(authorizeUrl({ client_id: 'dev-client', redirect_uri: 'javascript:alert(1)' }))).status,
    ).toBe(400);
    expect(
      (await fetch(authorizeUrl({ client_id: 'dev-client', redirect_uri: 'http://u:p@evil.example/' })))
        .status,
    ).toBe(400);
    // A client with a registered callback accepts only it and paths below it.
    expect(
      (await fetch(authorizeUrl({ client_id: 'strict', redirect_uri: 'http://localhost:4000/account/cb' })))
        .status,
    ).toBe(200);
    expect(
      (await fetch(authorizeUrl({ client_id: 'strict', redirect_uri: 'http://localhost:4000/accountx' })))
        .status,
    ).toBe(400);
    expect(
      (await fetch(authorizeUrl({ client_id: 'strict', redirect_uri: 'http://evil.example/account/' })))
        .status,
    ).toBe(400);
    const res = await approve({ client_id: 'strict', redirect_uri: 'http://localhost:4001/account/' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('GitHub-like OAuth stand-in: the API and malformed requests', () => {
  it('answers /user without or with a bad token with 401', async () => {
    const none = await fetch(`${standIns.urls.githubApi}/user`);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ message: 'Requires authentication' });
    const bad = await fetch(`${standIns.urls.githubApi}/user`, {
      headers: { authorization: 'Bearer gho_nope' },
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ message: 'Bad credentials' });
    expect((await fetch(`${standIns.urls.githubApi}/user/emails`)).status).toBe(401);
  });

  it('answers malformed token requests with 4xx JSON, never 500', async () => {
    const url = `${standIns.urls.github}/login/oauth/access_token`;
    const broken = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toHaveProperty('message');
    const wrongType = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: '<x/>',
    });
    expect(wrongType.status).toBe(415);
    const huge = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'x'.repeat(2_000_000) }),
    });
    expect(huge.status).toBe(413);
    const typed = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: ['dev-client'], code: 5 }),
    });
    expect(typed.status).toBe(200);
    expect(await typed.json()).toMatchObject({ error: 'bad_verification_code' });
  });
});

describe('stand-ins config', () => {
  it('has the development defaults', () => {
    expect(loadConfig({})).toEqual({
      httpPort: 4500,
      smtpPort: 2525,
      githubClients: [{ clientId: 'dev-client', clientSecret: 'dev-secret' }],
    });
  });

  it('reads ports, public URL and GitHub clients', () => {
    expect(
      loadConfig({
        STANDINS_HTTP_PORT: '5500',
        STANDINS_SMTP_PORT: '0',
        STANDINS_PUBLIC_URL: 'http://dev.example:5500/',
        GITHUB_CLIENTS: 'a:b, c:d@http://localhost:4000/account/git',
      }),
    ).toEqual({
      httpPort: 5500,
      smtpPort: 0,
      publicUrl: 'http://dev.example:5500',
      githubClients: [
        { clientId: 'a', clientSecret: 'b' },
        { clientId: 'c', clientSecret: 'd', redirectUris: ['http://localhost:4000/account/git'] },
      ],
    });
    expect(() => loadConfig({ GITHUB_CLIENTS: 'nosecret' })).toThrow();
    expect(() => loadConfig({ STANDINS_HTTP_PORT: 'x' })).toThrow();
  });
});
