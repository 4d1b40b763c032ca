import { describe, expect, it } from 'vitest';
import { xsrfHeaders } from './http-client.ts';

describe('xsrfHeaders (the XSRF-TOKEN cookie, sent as the X-XSRF-TOKEN header)', () => {
  const page = 'http://localhost:4001';
  it.each([
    [
      'same origin with the cookie → the header',
      '/m365/login',
      'a=1; XSRF-TOKEN=t%2B1',
      { 'X-XSRF-TOKEN': 't+1' },
    ],
    ['absolute same-origin URL → the header', `${page}/x`, 'XSRF-TOKEN=abc', { 'X-XSRF-TOKEN': 'abc' }],
    ['another origin → never (no leak)', 'http://localhost:4434/m365/login', 'XSRF-TOKEN=abc', {}],
    ['no cookie → no header', '/x', 'a=1', {}],
    ['an empty cookie → no header', '/x', 'XSRF-TOKEN=', {}],
    ['a look-alike name is not the cookie', '/x', 'MY-XSRF-TOKEN=abc', {}],
  ])('%s', (_name, url, cookies, expected) => {
    expect(xsrfHeaders(url, page, cookies)).toEqual(expected);
  });
});
