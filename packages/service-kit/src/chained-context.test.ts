import { createContextKey, ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { ChainedContext } from './chained-context.ts';

const KEYS = ['span', 'suppress', 'baggage', 'rpc'].map((name) => createContextKey(name));

/** A small deterministic generator, so that a failure repeats. */
function random(seed: number) {
  let state = seed;
  return (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
}

describe('ChainedContext (the contexts of a traced request)', () => {
  it('answers every lookup as the API context does, through any sequence of sets and deletes, past its rebuilt depth', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const pick = random(seed);
      let ours: Context = ChainedContext.ROOT;
      let theirs: Context = ROOT_CONTEXT;
      // Every context made along the way, to check that none changed after it was extended.
      const made: { ours: Context; theirs: Context }[] = [];
      for (let step = 0; step < 120; step++) {
        const key = KEYS[pick(KEYS.length)]!;
        if (pick(4) === 0) {
          ours = ours.deleteValue(key);
          theirs = theirs.deleteValue(key);
        } else {
          const value = { step };
          ours = ours.setValue(key, value);
          theirs = theirs.setValue(key, value);
        }
        made.push({ ours, theirs });
      }
      for (const { ours: a, theirs: b } of made)
        for (const key of KEYS) expect(a.getValue(key), `seed ${seed}`).toBe(b.getValue(key));
    }
  });

  it('starts empty and leaves the context it extends as it was', () => {
    const [span, suppress] = KEYS as [symbol, symbol];
    expect(ChainedContext.ROOT.getValue(span)).toBeUndefined();
    const withSpan = ChainedContext.ROOT.setValue(span, 'a');
    const suppressed = withSpan.setValue(suppress, true);
    const without = suppressed.deleteValue(span);
    expect([withSpan.getValue(span), withSpan.getValue(suppress)]).toEqual(['a', undefined]);
    expect([suppressed.getValue(span), suppressed.getValue(suppress)]).toEqual(['a', true]);
    expect([without.getValue(span), without.getValue(suppress)]).toEqual([undefined, true]);
    expect(ChainedContext.ROOT.getValue(span)).toBeUndefined();
  });
});
