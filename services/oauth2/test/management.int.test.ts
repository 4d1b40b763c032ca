import { createTestDb } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { describe, expect, it } from 'vitest';
import { exchangeCode, refresh, signIn, startServer, useTestServer, type TestServer } from './harness.ts';

const GRACE_SECONDS = 5;
const clock = new FakeClock();
const server = useTestServer({ clock, env: { OAUTH2_REFRESH_GRACE_SECONDS: String(GRACE_SECONDS) } });

async function scrape(s: TestServer): Promise<string> {
  const res = await fetch(`${s.management}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** A sample's value (0 when the labelled series does not exist yet). */
function value(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the authorization server on its management listener', () => {
  it('counts tokens issued by grant type and refresh tokens reused past the grace window, never a token', async () => {
    const before = await scrape(server);
    const { callback, verifier } = await signIn(server);
    const code = callback.searchParams.get('code')!;
    const tokens = await exchangeCode(server, code, verifier);
    expect(tokens.status).toBe(200);
    const refreshToken = tokens.body.refresh_token as string;
    expect((await refresh(server, refreshToken)).status).toBe(200);
    clock.advance((GRACE_SECONDS + 1) * 1000);
    expect((await refresh(server, refreshToken)).status).toBe(400);

    const after = await scrape(server);
    const issued = (grant: string) =>
      value(after, 'oauth2_tokens_issued_total', `grant_type="${grant}"`) -
      value(before, 'oauth2_tokens_issued_total', `grant_type="${grant}"`);
    expect(issued('authorization_code')).toBe(1);
    expect(issued('refresh_token')).toBe(1);
    expect(
      value(after, 'oauth2_refresh_reuse_detected_total') -
        value(before, 'oauth2_refresh_reuse_detected_total'),
    ).toBe(1);
    // Codes and tokens never become labels or values.
    for (const secret of [code, refreshToken, tokens.body.access_token as string, verifier])
      expect(after).not.toContain(secret);
  });

  it('answers the three routes with no key and 404 to the admin API routes', async () => {
    for (const path of ['/metrics', '/health/alive', '/health/ready'])
      expect((await fetch(`${server.management}${path}`)).status, path).toBe(200);
    for (const path of [
      '/admin/keys/rotate',
      '/admin/oauth2/introspect',
      '/.well-known/openid-configuration',
    ])
      expect((await fetch(`${server.management}${path}`, { method: 'POST' })).status, path).toBe(404);
  });

  // Until now the admin listener's /health/ready answered ok without touching the database.
  it('readiness checks the database: 503 on the admin and management listeners once it is unreachable', async () => {
    const db = await createTestDb();
    const own = await startServer({ db });
    try {
      expect((await fetch(`${own.admin}/health/ready`)).status).toBe(200);
      expect((await fetch(`${own.management}/health/ready`)).status).toBe(200);
      await db.close();
      const admin = await fetch(`${own.admin}/health/ready`);
      expect(admin.status).toBe(503);
      expect(await admin.json()).toEqual({ errors: { database: 'not reachable' } });
      const management = await fetch(`${own.management}/health/ready`);
      expect(management.status).toBe(503);
      expect(await management.json()).toEqual({ status: 'database_unreachable' });
      // Alive all the same: an orchestrator takes it out of rotation without restarting it.
      expect((await fetch(`${own.management}/health/alive`)).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
