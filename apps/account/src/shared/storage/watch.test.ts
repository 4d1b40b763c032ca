import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchValue } from './watch.ts';

describe('watchValue (cookie-change polling, 300 ms by default)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('reports a change within one 300 ms look, once per change, and nothing after stop', () => {
    let value: string | null = 'token-a';
    const seen: (string | null)[] = [];
    const stop = watchValue(
      () => value,
      (v) => seen.push(v),
    );
    vi.advanceTimersByTime(299);
    value = null; // another tab logged out
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([null]);
    vi.advanceTimersByTime(3000);
    expect(seen).toEqual([null]);
    value = 'token-b';
    vi.advanceTimersByTime(300);
    expect(seen).toEqual([null, 'token-b']);
    stop();
    value = 'token-c';
    vi.advanceTimersByTime(3000);
    expect(seen).toEqual([null, 'token-b']);
  });

  it('the cookie hook interval (5 s) looks no sooner', () => {
    let value: string | null = null;
    const seen: (string | null)[] = [];
    watchValue(
      () => value,
      (v) => seen.push(v),
      5000,
    );
    value = 'signed-in-elsewhere';
    vi.advanceTimersByTime(4999);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual(['signed-in-elsewhere']);
  });
});
