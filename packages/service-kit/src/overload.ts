import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';

/**
 * Load shedding: when the process's event loop runs late, new requests are answered at once with
 * 503 and `Retry-After` instead of queueing behind the ones already admitted (which then finish
 * within their latency bound). `/health/*` is always answered, so that an orchestrator does not
 * restart a process for being busy (the management port, management.ts, is never shed at all, so an
 * operator can still see why).
 *
 * The lag is measured by a timer that should fire every `sampleIntervalMs`: how late it fires is
 * how long the loop was busy. The process sheds once `sustainedSamples` samples in a row exceeded
 * `maxEventLoopDelayMs` (a single pause, a GC or a burst of CPU steal on a shared machine, does not
 * shed), and admits again at the first sample within it.
 */

/** The environment of the guard: one schema for every service (each process reads its own). */
export const overloadEnvSchema = z.object({
  // At 1 s late, the requests already admitted miss their bound (p99 of admitted requests ≤ 1 s).
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1000)
    .describe(
      'Shed new requests (503) while the event loop runs later than this (ms); 0 turns shedding off.',
    ),
  OVERLOAD_SUSTAINED_SAMPLES: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(2)
    .describe('How many lag samples in a row must exceed the delay before shedding starts.'),
  OVERLOAD_SAMPLE_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .describe('How often the event-loop lag is sampled (ms).'),
  OVERLOAD_RETRY_AFTER_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(2)
    .describe('The `Retry-After` (seconds) of a shed request.'),
});

export interface OverloadConfig {
  maxEventLoopDelayMs: number;
  sustainedSamples: number;
  sampleIntervalMs: number;
  retryAfterSeconds: number;
}

/** The guard's settings from a service's environment (throws on a bad value, as the service's config does). */
export function overloadConfig(env: Record<string, string | undefined>): OverloadConfig {
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const e = overloadEnvSchema.parse(set);
  return {
    maxEventLoopDelayMs: e.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS,
    sustainedSamples: e.OVERLOAD_SUSTAINED_SAMPLES,
    sampleIntervalMs: e.OVERLOAD_SAMPLE_INTERVAL_MS,
    retryAfterSeconds: e.OVERLOAD_RETRY_AFTER_SECONDS,
  };
}

export interface OverloadGuard {
  readonly config: OverloadConfig;
  /** Whether a request for `path` is to be shed now. */
  shed(path: string): boolean;
  /** The last measured lag (ms). */
  lagMs(): number;
  stop(): void;
}

const ALWAYS_ANSWERED = /^\/(health\/(alive|ready)|metrics)(\?|$)/;

export function startOverloadGuard(config: OverloadConfig): OverloadGuard {
  let lag = 0;
  let late = 0;
  let timer: NodeJS.Timeout | undefined;
  const enabled = config.maxEventLoopDelayMs > 0;
  const sample = () => {
    const due = performance.now() + config.sampleIntervalMs;
    timer = setTimeout(() => {
      lag = Math.max(0, performance.now() - due);
      late = lag > config.maxEventLoopDelayMs ? late + 1 : 0;
      sample();
    }, config.sampleIntervalMs);
    timer.unref();
  };
  if (enabled) sample();
  return {
    config,
    shed: (path) => enabled && late >= config.sustainedSamples && !ALWAYS_ANSWERED.test(path),
    lagMs: () => lag,
    stop: () => clearTimeout(timer),
  };
}

/** The service's own error body for a shed request (Kratos envelope, OAuth2 error, `{errorCode, message}`). */
export type OverloadBody = () => object;

/** Sheds Fastify requests (before routing, body parsing and authentication). */
export function shedFastifyRequests(app: FastifyInstance, guard: OverloadGuard, body: OverloadBody): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (!guard.shed(req.url)) return done();
    void reply
      .code(503)
      .header('retry-after', String(guard.config.retryAfterSeconds))
      .header('cache-control', 'no-store')
      .header('connection', 'close')
      .send(body());
  });
}

/** A guard of its own for `app` (stopped when the app closes), shedding its requests. */
export function shedWhenOverloaded(app: FastifyInstance, config: OverloadConfig, body: OverloadBody): void {
  const guard = startOverloadGuard(config);
  app.addHook('onClose', async () => guard.stop());
  shedFastifyRequests(app, guard, body);
}

/** Sheds requests of a plain Node handler (oidc-provider's). */
export function shedNodeRequests(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  guard: OverloadGuard,
  body: OverloadBody,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (!guard.shed(req.url ?? '/')) return handler(req, res);
    const text = JSON.stringify(body());
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
      'retry-after': String(guard.config.retryAfterSeconds),
      'cache-control': 'no-store',
      connection: 'close',
    });
    res.end(text);
  };
}
