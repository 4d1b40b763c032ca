import { vi } from 'vitest';

export interface MockCall {
  method: string;
  url: URL;
  body: unknown;
  credentials?: RequestCredentials;
  headers: Headers;
}

type Answer = { status: number; body?: unknown } | undefined;
/** Answers a call; a promise delays the answer (an answer racing another event). */
type Handler = (call: MockCall) => Answer | Promise<Answer>;

/** A fetch stand-in answering JSON by method + path; records every call. */
export function mockFetch(handler: Handler) {
  const calls: MockCall[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    let body: unknown = init.body;
    if (typeof init.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    }
    const call: MockCall = {
      method: init.method ?? 'GET',
      url,
      body,
      credentials: init.credentials,
      headers: new Headers(init.headers),
    };
    calls.push(call);
    const answer = (await handler(call)) ?? {
      status: 404,
      body: { error: { code: 404, message: 'not mocked' } },
    };
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fn);
  return { fn, calls };
}
