import { describe, expect, it } from 'vitest';
import { medianOf } from './median.ts';

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
