import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockEventLoop } from '@acme/test-kit/event-loop';
import { http, startTestService, type TestUsersService } from './harness.ts';

/**
 * Load shedding (service-kit overload.ts) in the user service's `{errorCode, message}` shape: while
 * the event loop runs late, new requests get 503 OVERLOADED + Retry-After, /health/alive answers.
 */
const SAMPLE_MS = 100;
let service: TestUsersService;

beforeAll(async () => {
  service = await startTestService({
    env: {
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '1',
      OVERLOAD_SUSTAINED_SAMPLES: '1',
      OVERLOAD_SAMPLE_INTERVAL_MS: String(SAMPLE_MS),
    },
  });
});
afterAll(async () => {
  await service.close();
});

describe('overload shedding', () => {
  it('overload: past capacity, parallel requests are shed with 503 OVERLOADED + Retry-After; /health/alive answers', async () => {
    blockEventLoop(SAMPLE_MS + 60);
    const [alive, ...answers] = await Promise.all([
      http(`${service.publicUrl}/health/alive`),
      ...Array.from({ length: 30 }, () =>
        http(`${service.publicUrl}/login/config?emailAddress=someone%40example.com`),
      ),
    ]);
    expect(alive!.status).toBe(200);
    const shed = answers.filter((r) => r.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    expect(answers.every((r) => r.status === 503 || r.status < 500)).toBe(true);
    expect(shed[0]!.headers.get('retry-after')).toBe('2');
    expect(shed[0]!.body).toEqual({ errorCode: 'OVERLOADED', message: expect.any(String) });
  });
});
