import { z } from 'zod';

/** Go-style durations: `30s`, `10m`, `1h`, `1h30m`, `1500ms` (or plain milliseconds), in milliseconds. */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  if (!/^(\d+(ms|s|m|h))+$/.test(v)) throw new Error('invalid duration');
  let total = 0;
  for (const [, n, unit] of v.matchAll(/(\d+)(ms|s|m|h)/g)) {
    total += Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
  }
  return total;
}

/**
 * A duration setting (milliseconds once parsed) with its default. A malformed value is refused with
 * the setting named by zod's issue path; the message never repeats the value.
 */
export const durationSetting = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v, ctx) => {
      try {
        return parseDuration(v);
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'must be a duration such as 30s, 10m or 1h30m',
          input: undefined,
        });
        return z.NEVER;
      }
    })
    .meta({ type: 'duration (`30s`, `10m`, `1h30m`, or ms)' });
