import { afterEach, describe, expect, it, vi } from 'vitest';
import { decideIdleGc, exposeGc, IDLE_GC_START, startIdleGc, type IdleGcState } from './idle-gc.ts';

const loaded = (quietRun: number): IdleGcState => ({ loaded: true, quietRun });

describe('decideIdleGc', () => {
  // busy ≥ 0.2, quiet < 0.05, three quiet samples in a row after load.
  it.each([
    ['an idle process never collects', IDLE_GC_START, 0.01, IDLE_GC_START, false],
    ['middling use without load leaves it idle', IDLE_GC_START, 0.1, IDLE_GC_START, false],
    ['load is remembered', IDLE_GC_START, 0.9, loaded(0), false],
    ['load again restarts the count', loaded(2), 0.5, loaded(0), false],
    ['a quiet sample after load counts', loaded(0), 0.01, loaded(1), false],
    ['a middling sample after load restarts the count', loaded(2), 0.1, loaded(0), false],
    ['the third quiet sample collects and forgets the load', loaded(2), 0.0, IDLE_GC_START, true],
  ] as const)('%s', (_name, state, utilisation, next, collect) => {
    expect(decideIdleGc(state, utilisation)).toEqual({ state: next, collect });
  });
});

describe('startIdleGc', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('collects once per quiet spell after load, with the memory-reducing flavour', () => {
    vi.useFakeTimers();
    const samples = [0.01, 0.01, 0.9, 1, 0.02, 0.01, 0.03, 0.01, 0.01, 0.01, 0.01, 0.6, 0.0, 0.0, 0.0];
    const utilisation = vi.fn(() => samples.shift() ?? 0);
    const gc = vi.fn();
    const idle = startIdleGc({ gc, utilisation, intervalMs: 5000 });
    expect(idle).toBeDefined();
    vi.advanceTimersByTime(5000 * 6); // idle, idle, load, load, quiet, quiet
    expect(gc).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5000); // third quiet sample
    expect(gc).toHaveBeenCalledTimes(1);
    expect(gc).toHaveBeenCalledWith({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    vi.advanceTimersByTime(5000 * 3); // still quiet: nothing more (the collection's own sample is skipped)
    expect(gc).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5000 * 4); // load, then three quiet samples
    expect(gc).toHaveBeenCalledTimes(2);
    expect(idle?.collections).toBe(2);
    idle?.stop();
    vi.advanceTimersByTime(5000 * 10);
    expect(utilisation).toHaveBeenCalledTimes(16); // 14 samples and one after each collection
  });

  it('does nothing without a gc function (no --expose-gc)', () => {
    expect(startIdleGc({ gc: undefined, utilisation: () => 1 })).toBeUndefined();
  });
});

describe('exposeGc', () => {
  it("gives V8's collector without --expose-gc on the command line", () => {
    const gc = exposeGc();
    expect(typeof gc).toBe('function');
    expect(() => gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' })).not.toThrow();
  });
});
