import { describe, expect, it } from 'vitest';
import { profileShare, type CpuProfile, type ProfileFrame } from './profile-share.ts';

// A request's server span wrapper (own) running the handler (the caller's code) through a context
// (own) and a runtime function; a statement's wrapper (own) passing through to the driver.
const frames: Record<number, [string, string]> = {
  1: ['(root)', ''],
  2: ['tracedEmit', 'traced.js'],
  4: ['with', 'otel.js'],
  5: ['run', 'node:internal/async_context_frame'],
  6: ['emitOn', 'traced.js'],
  7: ['handler', 'app.js'],
  3: ['client.query', 'traced.js'],
  10: ['submit', 'driver.js'],
  8: ['(idle)', ''],
  9: ['(garbage collector)', ''],
};
const children: Record<number, number[]> = { 1: [2, 3, 8, 9], 2: [4], 4: [5], 5: [6], 6: [7], 3: [10] };

const profileOf = (samples: number[]): CpuProfile => ({
  nodes: Object.entries(frames).map(([id, [functionName, url]]) => ({
    id: Number(id),
    callFrame: { functionName, url },
    children: children[Number(id)],
  })),
  startTime: 1000,
  endTime: 1000 + 100 * (samples.length + 1),
  samples,
  // Each sample 100 µs after the one before; the last stands for none.
  timeDeltas: samples.map(() => 100),
});

const code = {
  own: (f: ProfileFrame) => f.url === 'traced.js' || f.url === 'otel.js',
  passThrough: (f: ProfileFrame) => f.functionName === 'emitOn' || f.functionName === 'client.query',
};

describe('profileShare', () => {
  it.each([
    // sampled node, busy, own: why
    [7, 100, 0, 'the handler below a pass-through wrapper is the caller’s code'],
    [6, 100, 100, 'the pass-through wrapper’s own time is the code’s'],
    [5, 100, 100, 'a runtime function the code calls (before the pass-through) is the code’s'],
    [2, 100, 100, 'an own function'],
    [10, 100, 0, 'the driver below the statement wrapper is the caller’s'],
    [3, 100, 100, 'the statement wrapper’s own time'],
    [9, 100, 0, 'the garbage collector is busy time, no one’s'],
    [8, 0, 0, 'idle time is not busy'],
  ])('a sample of node %i: busy %i µs, own %i µs (%s)', (node, busyUs, ownUs) => {
    // The sample of interest, then one more that only closes its interval.
    const share = profileShare(profileOf([node, 8]), code);
    expect(share).toEqual({ busyUs, ownUs });
  });

  it('counts only the samples in the window', () => {
    // Samples at 1100, 1200, 1300, 1400, 1500 (the last closing the fourth's interval).
    const profile = profileOf([2, 7, 2, 7, 8]);
    expect(profileShare(profile, code)).toEqual({ busyUs: 400, ownUs: 200 });
    expect(profileShare(profile, code, 1200, 1400)).toEqual({ busyUs: 200, ownUs: 100 });
    expect(profileShare(profile, code, 1300, 1300)).toEqual({ busyUs: 0, ownUs: 0 });
  });
});
