import type { Result } from 'autocannon';

/** The figures we report for one autocannon run. */
export function summarise(result: Result) {
  return {
    requestsPerSec: Math.round(result.requests.average),
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    totalRequests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    connections: result.connections,
    durationSec: result.duration,
  };
}
