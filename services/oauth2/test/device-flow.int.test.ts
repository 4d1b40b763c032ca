import { sql } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  acceptUserCode,
  approveDevice,
  DEVICE_CLIENT,
  DEVICE_GRANT,
  deviceAuthorization,
  followVerifier,
  openVerification,
  pollToken,
} from './device-harness.ts';
import {
  adminJson,
  CookieJar,
  DEFAULT_EXT,
  exchangeCode,
  navigate,
  signIn,
  useTestServer,
} from './harness.ts';

const clock = new FakeClock();
// Per-IP limits are told apart by X-Forwarded-For (trusted here), so each test uses its own address.
const server = useTestServer({
  clock,
  env: {
    TRUST_PROXY: '1',
    OAUTH2_DEVICE_AUTH_PER_IP: '5',
    OAUTH2_DEVICE_USER_CODE_ATTEMPTS_PER_IP: '10',
    OAUTH2_DEVICE_CLIENTS: JSON.stringify([
      { client_id: 'research-cli', client_name: 'Research CLI' },
      { client_id: 'short-lived-cli', client_name: 'Short-lived CLI', code_ttl_seconds: 30 },
    ]),
  },
});
let nextIp = 1;
const freshIp = () => `203.0.113.${nextIp++}`;

describe('device authorization grant (RFC 8628) on Hydra’s wire', () => {
  it('RFC 8628 §3.2: the device authorization response has an 8-letter user code without vowels, 600 s, 5 s, and the Platform page', async () => {
    const res = await deviceAuthorization(server, { ip: freshIp() });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toContain('no-store');
    expect(res.body.device_code).toMatch(/^ory_dc_/);
    expect(res.body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(res.body.expires_in).toBe(600);
    expect(res.body.interval).toBe(5);
    expect(res.body.verification_uri).toBe('http://localhost:4000/account/device');
    expect(res.body.verification_uri_complete).toBe(
      `http://localhost:4000/account/device?user_code=${res.body.user_code as string}`,
    );
  });

  it("the verification endpoint answers on the asking application's own device page (client_id), else on Platform's", async () => {
    const magic = await navigate(new CookieJar(), `${server.publicUrl}/oauth2/device/verify?client_id=magic`);
    expect(magic.status).toBe(302);
    expect(magic.headers.get('location')).toMatch(
      /^http:\/\/localhost:4001\/account\/device\?device_challenge=/,
    );
    const unknown = await navigate(
      new CookieJar(),
      `${server.publicUrl}/oauth2/device/verify?client_id=evil`,
    );
    expect(unknown.headers.get('location')).toMatch(
      /^http:\/\/localhost:4000\/account\/device\?device_challenge=/,
    );
  });

  it('an unknown client and an application client (no device grant) are refused', async () => {
    const unknown = await deviceAuthorization(server, { ip: freshIp(), clientId: 'nope' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const app = await deviceAuthorization(server, { ip: freshIp(), clientId: 'platform' });
    expect(app.status).toBe(400);
    expect(app.body).toEqual({
      error: 'invalid_request',
      error_description: 'urn:ietf:params:oauth:grant-type:device_code is not allowed for this client',
    });
  });

  it('approve: pending → consent shown (never skipped) → tokens whose ext equals a browser sign-in’s; refresh rotates', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const deviceCode = auth.body.device_code as string;
    const pending = await pollToken(server, deviceCode);
    expect(pending).toMatchObject({ status: 400, body: { error: 'authorization_pending' } });

    // The code is typed in lower case without its hyphen.
    const typed = (auth.body.user_code as string).replace('-', '').toLowerCase();
    const { done, consent } = await approveDevice(server, typed);
    expect(consent).toMatchObject({
      client: { client_id: DEVICE_CLIENT, client_name: 'Research CLI', skip_consent: false },
      requested_scope: ['openid', 'offline_access'],
    });
    expect(done.toString()).toBe('http://localhost:4000/account/device?status=approved');

    clock.advance(6000);
    const tokens = await pollToken(server, deviceCode);
    expect(tokens.status).toBe(200);
    expect(tokens.body.token_type).toBe('Bearer');
    expect(tokens.body.refresh_token).toMatch(/^ory_rt_/);
    expect(tokens.body.id_token).toBeTruthy();
    const claims = decodeJwt(tokens.body.access_token as string);
    expect(claims.client_id).toBe(DEVICE_CLIENT);
    expect(claims.sub).toBe('identity-1');

    // A browser sign-in with the same consent session gives the same ext.
    const browser = await signIn(server, { subject: 'identity-1' });
    const browserTokens = await exchangeCode(
      server,
      browser.callback.searchParams.get('code')!,
      browser.verifier,
    );
    expect(claims.ext).toEqual(decodeJwt(browserTokens.body.access_token as string).ext);
    expect(claims.ext).toEqual(DEFAULT_EXT);

    const refreshed = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.body.refresh_token as string,
        client_id: DEVICE_CLIENT,
      }).toString(),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(tokens.body.refresh_token);
    expect(decodeJwt(refreshed.body.access_token as string).ext).toEqual(DEFAULT_EXT);

    // The device code yields tokens once; a replay ends the grant (as for an authorization code).
    const again = await pollToken(server, deviceCode);
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const afterReplay = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: refreshed.body.refresh_token as string,
        client_id: DEVICE_CLIENT,
      }).toString(),
    });
    expect(afterReplay.status).toBe(400);
  });

  it('replayed device code in parallel: of 50 polls of an approved code exactly one gets tokens', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const deviceCode = auth.body.device_code as string;
    await approveDevice(server, auth.body.user_code as string);
    clock.advance(6000);
    const refreshTokens = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from oauth2_models where model = 'RefreshToken'`.execute(
          server.db.kysely,
        )
      ).rows[0]!.n;
    const before = await refreshTokens();
    const polls = await Promise.all(Array.from({ length: 50 }, () => pollToken(server, deviceCode)));
    expect(polls.filter((p) => p.status === 200)).toHaveLength(1);
    expect(polls.filter((p) => p.status === 400 && p.body.error === 'invalid_grant')).toHaveLength(49);
    // Nothing half-written: at most the one set of tokens was stored (a late replay may end the grant).
    expect((await refreshTokens()) - before).toBeLessThanOrEqual(1);
  });

  it('RFC 8628 §3.5: denied → access_denied on the next poll, and the app page says so', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const { done } = await approveDevice(server, auth.body.user_code as string, { deny: true });
    expect(done.toString()).toBe('http://localhost:4000/account/device?error=denied');
    const res = await pollToken(server, auth.body.device_code as string);
    expect(res).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('RFC 8628 §3.5: after expires_in the poll answers expired_token and the user code is refused as expired', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const jar = new CookieJar();
    const { challenge } = await openVerification(server, jar);
    clock.advance(601_000);
    const poll = await pollToken(server, auth.body.device_code as string);
    expect(poll).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    const accepted = await acceptUserCode(server, challenge, auth.body.user_code as string);
    expect(accepted).toMatchObject({ status: 400, body: { error: 'expired_token' } });
  });

  it('a device client may have its own code lifetime (code_ttl_seconds): expires_in says it, and the code expires after it', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp(), clientId: 'short-lived-cli' });
    expect(auth.body.expires_in).toBe(30);
    clock.advance(31_000);
    const poll = await pollToken(server, auth.body.device_code as string, 'short-lived-cli');
    expect(poll).toMatchObject({ status: 400, body: { error: 'expired_token' } });
    // The other clients keep the default (600 s).
    expect((await deviceAuthorization(server, { ip: freshIp() })).body.expires_in).toBe(600);
  });

  it('slow_down: polling faster than the interval answers slow_down and adds 5 s', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const code = auth.body.device_code as string;
    expect((await pollToken(server, code)).body.error).toBe('authorization_pending');
    expect((await pollToken(server, code)).body.error).toBe('slow_down');
    // The interval is now 10 s: 6 s later is still too fast (and makes it 15 s); 16 s later is fine.
    clock.advance(6000);
    expect((await pollToken(server, code)).body.error).toBe('slow_down');
    clock.advance(11_000);
    expect((await pollToken(server, code)).body.error).toBe('slow_down');
    clock.advance(21_000);
    expect((await pollToken(server, code)).body.error).toBe('authorization_pending');
  });

  it('slow_down under parallel polls: of 50 simultaneous polls at most one is on time', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const code = auth.body.device_code as string;
    await pollToken(server, code);
    clock.advance(6000);
    const answers = await Promise.all(Array.from({ length: 50 }, () => pollToken(server, code)));
    const errors = answers.map((a) => a.body.error);
    expect(errors.filter((e) => e === 'authorization_pending')).toHaveLength(1);
    expect(errors.filter((e) => e === 'slow_down')).toHaveLength(49);
  });

  it('replayed user code: a second accept of the same code (another challenge) is refused as used', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const first = await openVerification(server, new CookieJar());
    expect((await acceptUserCode(server, first.challenge, auth.body.user_code as string)).status).toBe(200);
    const second = await openVerification(server, new CookieJar());
    const replay = await acceptUserCode(server, second.challenge, auth.body.user_code as string);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(replay.body.error_description).toBe('The user code has already been used.');
  });

  it('parallel accepts of one user code: of 50, exactly one succeeds', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const challenges = await Promise.all(
      Array.from({ length: 50 }, () => openVerification(server, new CookieJar(), freshIp())),
    );
    const answers = await Promise.all(
      challenges.map((c) => acceptUserCode(server, c.challenge, auth.body.user_code as string)),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused.map((a) => [a.status, a.body.error])).toEqual(
      Array.from({ length: 49 }, () => [400, 'invalid_grant']),
    );
  });

  it('a device challenge is single-use and its verifier works once, only in the browser that opened it', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const other = await deviceAuthorization(server, { ip: freshIp() });
    const jar = new CookieJar();
    const { challenge } = await openVerification(server, jar);
    const accepted = await acceptUserCode(server, challenge, auth.body.user_code as string);
    expect((await acceptUserCode(server, challenge, other.body.user_code as string)).status).toBe(410);

    // Another browser with the verifier (the victim of a forwarded link) is refused.
    const stranger = await navigate(new CookieJar(), accepted.body.redirect_to as string);
    expect(stranger.status).toBe(403);
    // …and the verifier is spent.
    const replay = await navigate(jar, accepted.body.redirect_to as string);
    expect(replay.status).toBe(400);
  });

  it('the verification endpoint refuses a user code posted directly (only the accept step checks codes)', async () => {
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const jar = new CookieJar();
    const { challenge } = await openVerification(server, jar);
    const accepted = await acceptUserCode(server, challenge, auth.body.user_code as string);
    const { inputs } = await followVerifier(
      server,
      new CookieJar(),
      accepted.body.redirect_to as string,
    ).catch(() => ({ inputs: {} }));
    expect(inputs).toEqual({});
    const direct = await navigate(jar, `${server.publicUrl}/oauth2/device/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        user_code: auth.body.user_code as string,
        xsrf: 'x',
        confirm: 'yes',
      }).toString(),
    });
    expect(direct.status).toBe(400);
  });

  it('brute force over user codes: the 11th attempt from one IP within the window answers 429, even with the right code', async () => {
    const ip = freshIp();
    const auth = await deviceAuthorization(server, { ip: freshIp() });
    const { challenge } = await openVerification(server, new CookieJar(), ip);
    for (let i = 0; i < 10; i += 1) {
      const wrong = await acceptUserCode(server, challenge, `BCDF-GHJ${'KLMNPQRSTV'[i]}`);
      expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    }
    const blocked = await acceptUserCode(server, challenge, auth.body.user_code as string);
    expect(blocked).toMatchObject({ status: 429, body: { error: 'too_many_requests' } });
    // A new challenge from the same address is limited too.
    const again = await openVerification(server, new CookieJar(), ip);
    expect((await acceptUserCode(server, again.challenge, auth.body.user_code as string)).status).toBe(429);
    // After the window it works again.
    clock.advance(600_000);
    const later = await openVerification(server, new CookieJar(), ip);
    const auth2 = await deviceAuthorization(server, { ip: freshIp() });
    expect((await acceptUserCode(server, later.challenge, auth2.body.user_code as string)).status).toBe(200);
  });

  it('brute force in parallel: 50 simultaneous wrong codes from one IP, exactly 10 are evaluated', async () => {
    const ip = freshIp();
    const { challenge } = await openVerification(server, new CookieJar(), ip);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        acceptUserCode(server, challenge, `ZZZZ-${String.fromCharCode(66 + (i % 20))}BBB`),
      ),
    );
    expect(answers.filter((a) => a.status === 400)).toHaveLength(10);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(40);
    for (const r of refused) expect(r.body.error).toBe('too_many_requests');
  });

  it('issuing device codes is limited per IP, also in parallel (50 at once, limit 5 here)', async () => {
    const ip = freshIp();
    const deviceCodes = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from oauth2_models where model = 'DeviceCode'`.execute(server.db.kysely)
      ).rows[0]!.n;
    const storedBefore = await deviceCodes();
    const answers = await Promise.all(Array.from({ length: 50 }, () => deviceAuthorization(server, { ip })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(45);
    for (const r of refused) {
      expect(r.body.error).toBe('too_many_requests');
      expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
    }
    // Nothing half-written: five device codes for this client and address, no more.
    expect((await deviceCodes()) - storedBefore).toBe(5);
  });

  it('bad input: malformed accept bodies and challenges get OAuth2 errors, never a 500', async () => {
    const { challenge } = await openVerification(server, new CookieJar(), freshIp());
    const path = `/admin/oauth2/auth/requests/device/accept?device_challenge=${challenge}`;
    expect((await adminJson(server, 'PUT', path, {})).status).toBe(400);
    expect((await adminJson(server, 'PUT', path, { user_code: 'x'.repeat(100) })).status).toBe(400);
    expect((await adminJson(server, 'PUT', path, { user_code: 'AB\u0000CD' })).status).toBe(400);
    const unknown = await adminJson(
      server,
      'PUT',
      '/admin/oauth2/auth/requests/device/accept?device_challenge=nope',
      {
        user_code: 'BCDF-GHJK',
      },
    );
    expect(unknown.status).toBe(404);
    const missing = await adminJson(server, 'PUT', '/admin/oauth2/auth/requests/device/accept', {
      user_code: 'x',
    });
    expect(missing.status).toBe(400);
    const poll = await pollToken(server, 'ory_dc_unknown');
    expect(poll).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const noCode = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, client_id: DEVICE_CLIENT }).toString(),
    });
    expect(noCode.status).toBe(400);
  });
});
