import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockEventLoop } from '@acme/test-kit/event-loop';
import { startServer, tokenRequest, type TestServer } from './harness.ts';

/**
 * Load shedding on the token endpoint (service-kit overload.ts, wrapped around oidc-provider's
 * handler) and the admin API: while the event loop runs late, new requests get 503 +
 * `temporarily_unavailable` + Retry-After at once; /health/alive keeps answering. The test blocks
 * the loop past a sample interval plus the tiny threshold, so the next sample finds it late.
 */
const SAMPLE_MS = 100;
let server: TestServer;

beforeAll(async () => {
  server = await startServer({
    env: {
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '1',
      OVERLOAD_SUSTAINED_SAMPLES: '1',
      OVERLOAD_SAMPLE_INTERVAL_MS: String(SAMPLE_MS),
    },
  });
});
afterAll(async () => {
  await server.close();
  await server.db.close();
});

const form = { grant_type: 'refresh_token', refresh_token: 'ory_rt_unknown', client_id: 'platform' };

describe('overload shedding', () => {
  it('overload: past capacity, parallel token requests are shed with 503 temporarily_unavailable + Retry-After; /health/alive answers', async () => {
    blockEventLoop(SAMPLE_MS + 60);
    const answers = await Promise.all(Array.from({ length: 40 }, () => tokenRequest(server, form)));
    const shed = answers.filter((r) => r.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    // Admitted ones get the library's own answer for an unknown refresh token.
    expect(answers.every((r) => r.status === 503 || r.status === 400)).toBe(true);
    expect(shed[0]!.headers.get('retry-after')).toBe('2');
    expect(shed[0]!.body).toMatchObject({ error: 'temporarily_unavailable' });

    blockEventLoop(SAMPLE_MS + 60);
    const [alive, admin, adminApi] = await Promise.all([
      fetch(`${server.publicUrl}/health/alive`),
      fetch(`${server.admin}/health/alive`),
      fetch(`${server.admin}/admin/clients`),
    ]);
    expect([alive.status, admin.status]).toEqual([200, 200]);
    expect(adminApi.status).toBe(503);
    expect(adminApi.headers.get('retry-after')).toBe('2');
  });
});
