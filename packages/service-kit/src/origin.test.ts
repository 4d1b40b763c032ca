import { describe, expect, it } from 'vitest';
import { isOpaqueOriginWrite } from './origin.ts';

const write = (headers: Record<string, unknown>, method = 'POST') => isOpaqueOriginWrite({ method, headers });

describe('opaque-origin writes (Origin: null)', () => {
  it.each([
    [
      'a sandboxed frame or data: document (cross-site)',
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      true,
    ],
    ['a client that sends no Sec-Fetch-Site', { origin: 'null' }, true],
    [
      'a forged same-site claim is not possible from a page, but "none" is refused too',
      { origin: 'null', 'sec-fetch-site': 'none' },
      true,
    ],
    [
      "the app's own no-referrer form post (same-site)",
      { origin: 'null', 'sec-fetch-site': 'same-site' },
      false,
    ],
    ['a same-origin form post under no-referrer', { origin: 'null', 'sec-fetch-site': 'same-origin' }, false],
    ['a named origin', { origin: 'http://localhost:4000' }, false],
    ['no Origin header', {}, false],
  ])('%s', (_name, headers, refused) => {
    expect(write(headers)).toBe(refused);
  });

  it('reads are never refused', () => {
    expect(write({ origin: 'null', 'sec-fetch-site': 'cross-site' }, 'GET')).toBe(false);
  });
});
