import fc from 'fast-check';

/** NUL and lone UTF-16 surrogates, alone and inside ordinary text. */
export const UNSTORABLE_SAMPLES = [
  '\u0000',
  'a\u0000b',
  'ada@acme.test\u0000',
  '\ud800',
  'x\udfff',
  '\ud83d!',
];

/**
 * Strings for fuzzing: arbitrary text, half the time with a NUL or a lone surrogate put in
 * (fast-check's plain strings almost never contain them).
 */
export function hostileText(options: { maxLength?: number } = {}): fc.Arbitrary<string> {
  const plain = fc.string({ maxLength: options.maxLength ?? 200 });
  return fc.oneof(
    plain,
    fc
      .tuple(plain, fc.constantFrom(...UNSTORABLE_SAMPLES), plain)
      .map(([before, bad, after]) => `${before}${bad}${after}`),
  );
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * `s` with each lone surrogate as U+FFFD: what a URL (UTF-8) can carry of it, so that
 * `encodeURIComponent` does not throw in the test itself.
 */
export function wellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, '\ufffd');
}
