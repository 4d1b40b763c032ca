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
