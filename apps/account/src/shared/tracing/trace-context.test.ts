// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SIGN_IN_TRACE_TTL_MS } from '../../constants.ts';
import { requestJson } from '../errors/http-error.ts';
import {
  beginSignInTrace,
  enableTraceContext,
  endSignInTrace,
  selectTraceId,
  traceHeaders,
} from './trace-context.ts';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
const traceIdOf = (headers: Record<string, string>) => TRACEPARENT.exec(headers.traceparent ?? '')?.[1];

afterEach(() => {
  endSignInTrace();
  enableTraceContext(false);
  vi.unstubAllGlobals();
});

describe('selectTraceId', () => {
  const stored = { traceId: 'a'.repeat(32), expiresAt: 1_000 };
  it.each([
    ['no sign-in in progress: a trace of its own', null, 0, 'fresh'],
    ['a sign-in in progress: its trace', stored, 999, 'a'.repeat(32)],
    ['the sign-in trace expired: a trace of its own', stored, 1_000, 'fresh'],
  ])('%s', (_name, s, now, expected) => {
    expect(selectTraceId(s, now, () => 'fresh')).toBe(expected);
  });
});

describe('traceparent on the app calls', () => {
  it('sends nothing while tracing is off (no header, no CORS preflight for it)', () => {
    beginSignInTrace();
    expect(traceHeaders()).toEqual({});
  });

  it('gives the calls of one sign-in one trace id and each call its own span id', () => {
    enableTraceContext(true);
    beginSignInTrace();
    const first = traceHeaders();
    const second = traceHeaders();
    expect(first.traceparent).toMatch(TRACEPARENT);
    expect(traceIdOf(first)).toBe(traceIdOf(second));
    expect(first.traceparent).not.toBe(second.traceparent);
  });

  it('starts a new trace for the next sign-in and after the sign-in ends', () => {
    enableTraceContext(true);
    beginSignInTrace();
    const one = traceIdOf(traceHeaders());
    beginSignInTrace();
    const two = traceIdOf(traceHeaders());
    expect(two).not.toBe(one);
    endSignInTrace();
    expect(traceIdOf(traceHeaders())).not.toBe(two);
    expect(traceIdOf(traceHeaders())).not.toBe(traceIdOf(traceHeaders()));
  });

  it('leaves a sign-in trace once it is older than its lifetime', () => {
    enableTraceContext(true);
    const now = Date.now();
    beginSignInTrace(now);
    const during = traceIdOf(traceHeaders(now + SIGN_IN_TRACE_TTL_MS - 1));
    expect(traceIdOf(traceHeaders(now))).toBe(during);
    expect(traceIdOf(traceHeaders(now + SIGN_IN_TRACE_TTL_MS))).not.toBe(during);
  });

  it('puts the header on every JSON call to a service', async () => {
    enableTraceContext(true);
    beginSignInTrace();
    const expected = traceIdOf(traceHeaders());
    const fetchImpl = vi.fn(async () => new Response('{}', { status: 200 }));
    await requestJson('http://localhost:4433/sessions/whoami', { fetchImpl });
    const init = (fetchImpl.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(traceIdOf(init.headers as Record<string, string>)).toBe(expected);
  });
});
