import { describe, expect, it } from 'vitest';
import { createHydraClient } from './hydra.ts';

describe('hydra admin client', () => {
  it('sends the admin key as a bearer token when one is configured', async () => {
    const seen: (string | null)[] = [];
    const fakeFetch = (async (_url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers).get('authorization'));
      return new Response(JSON.stringify({ challenge: 'c', skip: false, subject: '' }), { status: 200 });
    }) as typeof fetch;
    await createHydraClient('http://admin.test', fakeFetch, 'k'.repeat(40)).getLoginRequest('c');
    await createHydraClient('http://admin.test', fakeFetch).getLoginRequest('c');
    expect(seen).toEqual([`Bearer ${'k'.repeat(40)}`, null]);
  });
});
