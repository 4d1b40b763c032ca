import { describe, expect, it } from 'vitest';
import { medianInterval, medianOf } from './median.ts';

describe('medianOf', () => {
  it('takes the median of every number at the same path, and the first run for the rest', () => {
    expect(
      medianOf([
        { rps: 10, lat: { p50: 3 }, note: 'a', tags: [1] },
        { rps: 30, lat: { p50: 1 }, note: 'b', tags: [2] },
        { rps: 20, lat: { p50: 2 }, note: 'c', tags: [3] },
      ]),
    ).toEqual({ rps: 20, lat: { p50: 2 }, note: 'a', tags: [1] });
  });
  it('averages the two middle values of an even count', () => {
    expect(medianOf([1, 4, 2, 3])).toBe(2.5);
  });
});

describe('medianInterval', () => {
  it.each([
    // n, coverage, the interval's order statistics (1-based) from the binomial table
    [5, 0.9, [1, 5]],
    [9, 0.9, [2, 8]],
    [15, 0.9, [4, 12]],
    [15, 0.95, [4, 12]],
    [20, 0.9, [6, 15]],
    [3, 0.9, [1, 3]],
  ])('%i values at %f: from the order statistics %j', (n, coverage, [lo, hi]) => {
    const xs = Array.from({ length: n }, (_, i) => (n - i) * 10);
    expect(medianInterval(xs, coverage)).toEqual([lo! * 10, hi! * 10]);
  });
  it('answers nothing for no values', () => {
    expect(medianInterval([])).toEqual([NaN, NaN]);
  });
});
