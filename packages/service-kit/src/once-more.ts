/**
 * A call to another of our services, sent once more on a fresh connection when it fails before any
 * answer: a kept-alive connection that a load balancer closes as it reloads (which it does to take
 * an instance out during a rolling restart), or that an instance closes as it drains, at the moment
 * the request goes out. Node's fetch, unlike a browser, does not resend on such a connection. Within
 * the caller's time-out (`signal`): an answer, or the time-out, is never retried, and never more than
 * once. Only for calls the callee may receive twice: reads, and writes that set a state rather than
 * add one (accepting a login request).
 */
export function fetchOnceMore(send: () => Promise<Response>, signal: AbortSignal): Promise<Response> {
  return send().catch((error: unknown) => {
    if (signal.aborted) throw error;
    return send();
  });
}

/** Methods HTTP defines as idempotent: a call the callee may receive twice. */
export function isIdempotent(method: string): boolean {
  return ['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS'].includes(method.toUpperCase());
}
