/**
 * The median of several runs of one workload, field by field: numbers at the same path are
 * replaced by their median; anything else (text, arrays) is taken from the first run.
 */
export function medianOf(runs: unknown[]): unknown {
  const [first] = runs;
  if (typeof first === 'number') {
    const values = runs.filter((r): r is number => typeof r === 'number').sort((a, b) => a - b);
    const mid = Math.floor(values.length / 2);
    const median = values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
    return Math.round(median * 100) / 100;
  }
  if (first && typeof first === 'object' && !Array.isArray(first)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(first))
      out[key] = medianOf(runs.map((r) => (r as Record<string, unknown> | null)?.[key]));
    return out;
  }
  return first;
}

/**
 * A distribution-free interval for the median of `xs` (the order statistics x(k) and x(n−k+1) whose
 * binomial coverage is at least `coverage`), or the whole range when there are too few values for
 * that coverage. How far the median of a noisy machine's rounds can be trusted.
 */
export function medianInterval(xs: number[], coverage = 0.9): [number, number] {
  const sorted = [...xs].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return [NaN, NaN];
  // P(Binomial(n, ½) ≤ j), summed term by term.
  let term = 0.5 ** n;
  let below = 0;
  let k = 0;
  for (let j = 0; j < n; j++) {
    below += term;
    if (2 * below > 1 - coverage) break;
    k = j + 1;
    term = (term * (n - j)) / (j + 1);
  }
  const lo = Math.max(0, k - 1);
  return [sorted[lo]!, sorted[n - 1 - lo]!];
}
