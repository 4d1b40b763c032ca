import { afterEach, describe, expect, it } from 'vitest';
import { overloadConfig, startOverloadGuard, type OverloadGuard } from './overload.ts';

const guards: OverloadGuard[] = [];
afterEach(() => {
  for (const g of guards.splice(0)) g.stop();
});
const start = (env: Record<string, string>) => {
  const guard = startOverloadGuard(overloadConfig(env));
  guards.push(guard);
  return guard;
};
/** A busy loop, as a burst past capacity makes (service-kit does not depend on the test kit). */
function blockEventLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy on purpose
  }
}
/** Lets the guard's overdue sample run (timers fire in expiry order: its own first). */
const nextSample = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('overload guard', () => {
  it('sheds only once the lag was sustained for the configured samples, and never /health or /metrics', async () => {
    const guard = start({
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '20',
      OVERLOAD_SAMPLE_INTERVAL_MS: '50',
      OVERLOAD_SUSTAINED_SAMPLES: '2',
    });
    blockEventLoop(120);
    await nextSample();
    expect(guard.lagMs()).toBeGreaterThan(20);
    expect(guard.shed('/sessions/whoami')).toBe(false); // one late sample: a pause, not overload
    blockEventLoop(120);
    await nextSample();
    expect(guard.shed('/sessions/whoami')).toBe(true);
    for (const path of ['/health/alive', '/health/ready', '/metrics', '/health/alive?x=1'])
      expect(guard.shed(path)).toBe(false);
    expect(guard.shed('/health/alive-but-not')).toBe(true);
  });

  it('0 turns shedding off; the defaults are 1,000 ms for 2 samples, Retry-After 2 s', () => {
    const off = start({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' });
    expect(off.shed('/x')).toBe(false);
    expect(overloadConfig({})).toEqual({
      maxEventLoopDelayMs: 1000,
      sustainedSamples: 2,
      sampleIntervalMs: 100,
      retryAfterSeconds: 2,
    });
    expect(overloadConfig({ OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '' }).maxEventLoopDelayMs).toBe(1000);
    expect(() => overloadConfig({ OVERLOAD_RETRY_AFTER_SECONDS: 'soon' })).toThrow();
  });
});
