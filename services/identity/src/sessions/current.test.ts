import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { wantsFresh } from './current.ts';

const request = (cacheControl: string | undefined) =>
  ({ headers: cacheControl === undefined ? {} : { 'cache-control': cacheControl } }) as FastifyRequest;

describe('wantsFresh: which whoami requests skip the session cache', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['no-cache', true],
    ['No-Cache', true],
    ['max-age=0', true],
    ['private, no-cache', true],
    [' max-age=0 ,no-store', true],
    ['max-age=10', false],
    ['no-store', false],
    ['no-cache-please', false],
    ['x'.repeat(201) + ',no-cache', false],
  ])('Cache-Control %j → %s', (value, fresh) => {
    expect(wantsFresh(request(value))).toBe(fresh);
  });
});
