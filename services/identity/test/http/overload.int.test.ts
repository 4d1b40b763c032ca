import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockEventLoop } from '@acme/test-kit/event-loop';
import { startHarness, type Harness } from '../harness.ts';

/**
 * Load shedding (service-kit overload.ts): while the event loop runs later than
 * OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, new requests get 503 + Retry-After in the Kratos envelope at
 * once, and /health/alive keeps answering. Deterministic: the test blocks the loop for longer than
 * a sample interval plus the (tiny) threshold, so the next sample finds it late for certain.
 */
const SAMPLE_MS = 100;
let shedding: Harness;
let calm: Harness;

beforeAll(async () => {
  shedding = await startHarness({
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '1',
    OVERLOAD_SUSTAINED_SAMPLES: '1',
    OVERLOAD_SAMPLE_INTERVAL_MS: String(SAMPLE_MS),
    OVERLOAD_RETRY_AFTER_SECONDS: '3',
  });
  calm = await startHarness(); // the defaults: 1,000 ms, 2 samples in a row
});
afterAll(async () => {
  for (const h of [shedding, calm]) await h.close();
});

const whoami = (h: Harness) =>
  fetch(`${h.publicUrl}/sessions/whoami`, { headers: { accept: 'application/json' } });

describe('overload shedding', () => {
  it('overload: past capacity, parallel requests are shed at once with 503 + Retry-After, and /health/alive still answers', async () => {
    blockEventLoop(SAMPLE_MS + 60);
    const answers = await Promise.all(Array.from({ length: 40 }, () => whoami(shedding)));
    const shed = answers.filter((r) => r.status === 503);
    expect(shed.length).toBeGreaterThan(0);
    // Every other answer is whoami's own (no session: 401); nothing else, no 500.
    expect(answers.every((r) => r.status === 503 || r.status === 401)).toBe(true);
    expect(shed[0]!.headers.get('retry-after')).toBe('3');
    expect(await shed[0]!.json()).toMatchObject({
      error: { id: 'service_overloaded', code: 503, status: 'Service Unavailable' },
    });
    await Promise.all(answers.filter((r) => !r.bodyUsed).map((r) => r.body?.cancel()));

    blockEventLoop(SAMPLE_MS + 60);
    const [alive, ready, admin] = await Promise.all([
      fetch(`${shedding.publicUrl}/health/alive`),
      fetch(`${shedding.publicUrl}/health/ready`),
      fetch(`${shedding.adminUrl}/health/alive`),
    ]);
    expect([alive.status, ready.status, admin.status]).toEqual([200, 200, 200]);
    expect(await alive.json()).toEqual({ status: 'ok' });

    // Once the loop keeps time again, requests are admitted.
    let admitted = false;
    for (let i = 0; i < 50 && !admitted; i++) {
      await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      admitted = (await whoami(shedding)).status === 401;
    }
    expect(admitted).toBe(true);
  });

  it('at the default threshold a burst of parallel requests is admitted', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => whoami(calm)));
    expect(answers.map((r) => r.status)).toEqual(Array(40).fill(401));
  });
});
