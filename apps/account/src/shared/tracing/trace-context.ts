import { SIGN_IN_TRACE_TTL_MS } from '../../constants.ts';
import { registry, type SignInTrace } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';

// W3C Trace Context on the app's calls to the services, while tracing is on (the app server says
// so in the runtime configuration; off, the calls carry nothing and need no CORS preflight for it).
// The calls of one sign-in share one trace id, kept for this tab from the authorize redirect to the
// code exchange (the pages between are separate documents), so a sign-in is one trace across the
// services. Any other call starts a trace of its own. Each call is a new span id, sampled.

let enabled = false;

/** Turns the header on (at start-up, from the runtime configuration). */
export function enableTraceContext(on: boolean): void {
  enabled = on;
}

function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) =>
    b.toString(16).padStart(2, '0'),
  ).join('');
}

/** A random trace id (never all zeros, which the format reserves). */
function newTraceId(): string {
  const id = randomHex(16);
  return /^0+$/.test(id) ? newTraceId() : id;
}

/** PURE: the trace id a call joins, the sign-in's while it lasts, else a new one of its own. */
export function selectTraceId(stored: SignInTrace | null, now: number, fresh: () => string): string {
  return stored && stored.expiresAt > now ? stored.traceId : fresh();
}

/** The `traceparent` header for one call (nothing while tracing is off). */
export function traceHeaders(now: number = Date.now()): Record<string, string> {
  if (!enabled) return {};
  const traceId = selectTraceId(read(registry.signInTrace), now, newTraceId);
  return { traceparent: `00-${traceId}-${randomHex(8)}-01` };
}

/** A sign-in starts (the authorize redirect): its calls from now on share a new trace. */
export function beginSignInTrace(now: number = Date.now()): void {
  if (!enabled) return;
  write(registry.signInTrace, { traceId: newTraceId(), expiresAt: now + SIGN_IN_TRACE_TTL_MS });
}

/** The sign-in is over (the tokens are stored): later calls are traces of their own. */
export function endSignInTrace(): void {
  remove(registry.signInTrace);
}
