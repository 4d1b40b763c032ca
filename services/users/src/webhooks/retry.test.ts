import { describe, expect, it } from 'vitest';
import { webhookRetryDelayMs } from './worker.ts';

describe('webhook retry schedule: 5 s × 4ⁿ⁻¹ up to 4 h, shortened by 0–50 % jitter', () => {
  const cases: [attempts: number, fullMs: number][] = [
    [1, 5_000],
    [2, 20_000],
    [3, 80_000],
    [4, 320_000],
    [5, 1_280_000],
    [6, 5_120_000],
    [7, 14_400_000],
    [30, 14_400_000],
  ];
  it.each(cases)('after %i failed attempts: at most %i ms, at least half of it', (attempts, fullMs) => {
    expect(webhookRetryDelayMs(attempts, () => 1)).toBe(fullMs);
    expect(webhookRetryDelayMs(attempts, () => 0)).toBe(fullMs / 2);
  });

  it('the retries of one delivery fit about a dozen attempts into the 24-hour window', () => {
    let total = 0;
    let attempts = 0;
    while (total < 24 * 3600_000) total += webhookRetryDelayMs(++attempts, () => 1);
    expect(attempts).toBeGreaterThan(8);
    expect(attempts).toBeLessThan(14);
  });
});
