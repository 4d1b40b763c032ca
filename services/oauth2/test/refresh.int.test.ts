import { FakeClock } from '@acme/db/clock';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXT, exchangeCode, introspect, refresh, signIn, useTestServer } from './harness.ts';

const GRACE_SECONDS = 5;
const clock = new FakeClock();
const server = useTestServer({ clock, env: { OAUTH2_REFRESH_GRACE_SECONDS: String(GRACE_SECONDS) } });

async function freshTokens() {
  const { callback, verifier } = await signIn(server);
  const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

describe('refresh token rotation (RFC 9700 §4.14.2)', () => {
  it('RFC 9700 §4.14.2: every refresh returns a new ory_rt_ token and a JWT that keeps ext', async () => {
    const tokens = await freshTokens();
    let current = tokens.refresh;
    const seen = new Set([current]);
    for (let i = 0; i < 3; i += 1) {
      const res = await refresh(server, current);
      expect(res.status).toBe(200);
      const next = res.body.refresh_token as string;
      expect(next).toMatch(/^ory_rt_/);
      expect(seen.has(next)).toBe(false);
      seen.add(next);
      expect(decodeJwt(res.body.access_token as string).ext).toEqual(DEFAULT_EXT);
      current = next;
    }
  });

  it('RFC 9700 §4.14.2: reuse after the grace window fails and revokes the grant', async () => {
    const tokens = await freshTokens();
    const rotated = await refresh(server, tokens.refresh);
    expect(rotated.status).toBe(200);
    clock.advance((GRACE_SECONDS + 1) * 1000);

    const reuse = await refresh(server, tokens.refresh);
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');

    // The whole chain is gone: the rotated refresh token and the access tokens.
    const next = await refresh(server, rotated.body.refresh_token as string);
    expect(next.status).toBe(400);
    expect(next.body.error).toBe('invalid_grant');
    expect((await introspect(server, rotated.body.access_token as string)).body).toEqual({ active: false });
    expect((await introspect(server, tokens.access)).body).toEqual({ active: false });
  });

  it('two tabs refreshing with the same token within the grace window both succeed', async () => {
    const tokens = await freshTokens();
    const [a, b] = await Promise.all([refresh(server, tokens.refresh), refresh(server, tokens.refresh)]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body.refresh_token).not.toBe(b.body.refresh_token);
    // Both tabs carry on with their own rotated token.
    expect((await refresh(server, a.body.refresh_token as string)).status).toBe(200);
    expect((await refresh(server, b.body.refresh_token as string)).status).toBe(200);
  });

  it('a second tab refreshing shortly after the first (inside the window) succeeds', async () => {
    const tokens = await freshTokens();
    expect((await refresh(server, tokens.refresh)).status).toBe(200);
    clock.advance((GRACE_SECONDS - 2) * 1000);
    expect((await refresh(server, tokens.refresh)).status).toBe(200);
  });

  it('RFC 6749 §6: refuses a refresh token of another client', async () => {
    const tokens = await freshTokens();
    const res = await fetch(`${server.issuer}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh,
        client_id: 'magic',
      }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_grant');
  });

  it('RFC 7009: a revoked refresh token no longer refreshes', async () => {
    const tokens = await freshTokens();
    const revoked = await fetch(`${server.issuer}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.refresh, client_id: 'platform' }),
    });
    expect(revoked.status).toBe(200);
    const res = await refresh(server, tokens.refresh);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });
});

describe('refresh token lifetimes: an idle limit and an absolute limit (30 and 90 days by default)', () => {
  const DAY = 24 * 3600 * 1000;

  it('refresh token idle expiry: unused for longer than the idle limit, it is refused', async () => {
    const tokens = await freshTokens();
    clock.advance(29 * DAY);
    const used = await refresh(server, tokens.refresh);
    expect(used.status).toBe(200);
    // Each rotation restarts the idle limit, but never past 30 days without use.
    clock.advance(30 * DAY + 60_000);
    const idle = await refresh(server, used.body.refresh_token as string);
    expect(idle.status).toBe(400);
    expect(idle.body.error).toBe('invalid_grant');
  });

  it('refresh token absolute expiry: refreshing every 29 days still ends 90 days after sign-in', async () => {
    const tokens = await freshTokens();
    let current = tokens.refresh;
    for (let i = 0; i < 3; i += 1) {
      clock.advance(29 * DAY);
      const res = await refresh(server, current);
      expect(res.status).toBe(200);
      current = res.body.refresh_token as string;
    }
    // Day 87: still inside both limits. Day 91: past the absolute limit, though used 4 days ago.
    clock.advance(4 * DAY);
    const late = await refresh(server, current);
    expect(late.status).toBe(400);
    expect(late.body.error).toBe('invalid_grant');
    expect((await introspect(server, current)).body).toEqual({ active: false });
  });
});
