import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

export type { Counter } from 'prom-client';
import type { Database } from '@acme/db';

/**
 * Prometheus metrics of one service instance. Each instance has its own registry (never
 * prom-client's global one), so several services, or two instances of one, can run in one process
 * (`npm start`, the tests) without clashing names. `/metrics` is served on the service's management
 * listener only (management.ts), never on its admin or public API.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Request duration, labelled by listener, method, route pattern and status code. */
  readonly httpDuration: Histogram<'listener' | 'method' | 'route' | 'status_code'>;
  /** Stops the event-loop monitor (call when the service closes). */
  close(): void;
}

/** Buckets for request duration (seconds): a password hash is ~50 ms, an upstream call up to seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createServiceMetrics(service: string, opts: { db?: Database } = {}): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by listener, method, route pattern (never the raw URL) and status code.',
    labelNames: ['listener', 'method', 'route', 'status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });

  // Event-loop delay, sampled by libuv's timer every 20 ms; each scrape reports since the last one.
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  new Gauge({
    name: 'event_loop_delay_seconds',
    help: 'Event-loop delay since the previous scrape (perf_hooks.monitorEventLoopDelay).',
    labelNames: ['quantile'] as const,
    registers: [registry],
    collect() {
      const s = (ns: number) => (Number.isFinite(ns) ? ns / 1e9 : 0);
      this.set({ quantile: '0.5' }, s(loop.percentile(50)));
      this.set({ quantile: '0.99' }, s(loop.percentile(99)));
      this.set({ quantile: 'max' }, s(loop.max));
      loop.reset();
    },
  });

  // This process's memory. In `npm start` every service shares one process, so each reports the same.
  new Gauge({
    name: 'process_memory_bytes',
    help: "This process's memory (process.memoryUsage()): rss for the whole process, every thread included; the heap, external and array-buffer figures of its main thread.",
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      const m = process.memoryUsage();
      this.set({ kind: 'rss' }, m.rss);
      setHeapFigures(this, m);
    },
  });
  const workerMemory = opts.db?.workerMemory?.bind(opts.db);
  if (workerMemory) {
    new Gauge({
      name: 'pglite_worker_memory_bytes',
      help: "The PGlite worker thread's memory, inside the process's rss: its V8 heap, external and array-buffer figures, and PostgreSQL's WebAssembly memory (wasm), which never shrinks.",
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        const m = await workerMemory().catch(() => undefined);
        if (!m) return; // closed: nothing to report
        setHeapFigures(this, m);
        this.set({ kind: 'wasm' }, m.wasm);
      },
    });
  }

  const stats = opts.db?.poolStats?.bind(opts.db);
  if (stats) {
    new Gauge({
      name: 'db_pool_connections',
      help: 'Database connection pool: open connections by state, and the configured maximum.',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const p = stats();
        this.set({ state: 'total' }, p.total);
        this.set({ state: 'idle' }, p.idle);
        this.set({ state: 'max' }, p.max);
      },
    });
    new Gauge({
      name: 'db_pool_waiting_requests',
      help: 'Queries waiting for a free database connection.',
      registers: [registry],
      collect() {
        this.set(stats().waiting);
      },
    });
  }

  return { registry, httpDuration, close: () => loop.disable() };
}

/** The V8 figures of one thread (its heap, external and array-buffer memory) on a memory gauge. */
function setHeapFigures(
  gauge: Gauge<'kind'>,
  m: { heapUsed: number; heapTotal: number; external: number; arrayBuffers: number },
): void {
  gauge.set({ kind: 'heap_used' }, m.heapUsed);
  gauge.set({ kind: 'heap_total' }, m.heapTotal);
  gauge.set({ kind: 'external' }, m.external);
  gauge.set({ kind: 'array_buffers' }, m.arrayBuffers);
}

/** A counter in the service's own registry. */
export function counter<L extends string>(
  metrics: ServiceMetrics,
  name: string,
  help: string,
  labelNames: readonly L[],
): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [metrics.registry] });
}

/** A gauge whose value is read at scrape time. */
export function sampledGauge(metrics: ServiceMetrics, name: string, help: string, read: () => number): void {
  new Gauge({
    name,
    help,
    registers: [metrics.registry],
    collect() {
      this.set(read());
    },
  });
}

/** A counter whose total is kept elsewhere (e.g. by a pool) and copied at scrape time. */
export function sampledCounter(
  metrics: ServiceMetrics,
  name: string,
  help: string,
  read: () => number,
): void {
  new Counter({
    name,
    help,
    registers: [metrics.registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

const startedAt = Symbol('metricsStartedAt');
type Timed = FastifyRequest & { [startedAt]?: bigint };

/**
 * Times every request of a Fastify listener. The route label is the matched pattern
 * (`/admin/identities/:id`), or `unmatched` for 404s, so label cardinality stays bounded.
 */
export function instrumentFastify(app: FastifyInstance, metrics: ServiceMetrics, listener: string): void {
  app.addHook('onRequest', async (req) => {
    (req as Timed)[startedAt] = process.hrtime.bigint();
  });
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const t0 = (req as Timed)[startedAt];
    if (t0 === undefined) return;
    metrics.httpDuration.observe(
      {
        listener,
        method: req.method,
        route: req.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      Number(process.hrtime.bigint() - t0) / 1e9,
    );
  });
}

/**
 * prom-client's default metrics (`process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `nodejs_*`): one registry per process, made at the first scrape. They describe the process, so
 * in `npm start`, where every service shares one, each service's `/metrics` shows the same figures.
 * (Once per process because their GC observer and event-loop monitor are never stopped.)
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** The Prometheus text of a service: its own registry, then the process's default metrics. */
export async function metricsText(metrics: ServiceMetrics): Promise<{ contentType: string; text: string }> {
  const [own, process] = await Promise.all([metrics.registry.metrics(), processMetrics().metrics()]);
  return { contentType: metrics.registry.contentType, text: `${own}\n${process}` };
}

/**
 * The usual wiring: times both listeners and stops the event-loop monitor when the admin listener
 * closes. (`/metrics` is the management listener's: management.ts.)
 */
export function attachMetrics(
  metrics: ServiceMetrics,
  listeners: { public?: FastifyInstance; admin: FastifyInstance },
): void {
  if (listeners.public) instrumentFastify(listeners.public, metrics, 'public');
  instrumentFastify(listeners.admin, metrics, 'admin');
  listeners.admin.addHook('onClose', async () => metrics.close());
}

/** Records one request served outside Fastify (e.g. the authorization server's public app). */
export function observeRequest(
  metrics: ServiceMetrics,
  labels: { listener: string; method: string; route: string; status: number },
  seconds: number,
): void {
  metrics.httpDuration.observe(
    {
      listener: labels.listener,
      method: labels.method,
      route: labels.route,
      status_code: String(labels.status),
    },
    seconds,
  );
}

/** The mail outbox as a service sees it: what is waiting, and its worker's failures (when it runs one). */
export interface OutboxReadings {
  /** Messages not yet sent, and the age of the oldest of them in seconds (0 when none). */
  backlog(): Promise<{ depth: number; oldestAgeSeconds: number }>;
  /** Failed delivery attempts of this process's outbox worker since it started. */
  failures?: () => number;
}

/**
 * `mail_outbox_depth`, `mail_outbox_oldest_age_seconds` (one query per scrape, read at scrape time;
 * left out of a scrape when the database does not answer) and `mail_outbox_failures_total`.
 */
export function registerOutboxMetrics(metrics: ServiceMetrics, readings: OutboxReadings): void {
  let reading: Promise<{ depth: number; oldestAgeSeconds: number } | undefined> | undefined;
  // Both gauges are collected in one scrape: one query serves them.
  const read = () => {
    reading ??= readings
      .backlog()
      .catch(() => undefined)
      .finally(() => setTimeout(() => (reading = undefined), 250).unref());
    return reading;
  };
  new Gauge({
    name: 'mail_outbox_depth',
    help: 'Messages in the mail outbox not yet sent (the shared table: every instance reports the same).',
    registers: [metrics.registry],
    async collect() {
      const r = await read();
      if (r) this.set(r.depth);
    },
  });
  new Gauge({
    name: 'mail_outbox_oldest_age_seconds',
    help: 'Age of the oldest message in the mail outbox not yet sent (0 when it is empty).',
    registers: [metrics.registry],
    async collect() {
      const r = await read();
      if (r) this.set(r.oldestAgeSeconds);
    },
  });
  if (readings.failures) {
    sampledCounter(
      metrics,
      'mail_outbox_failures_total',
      "Failed delivery attempts of this process's outbox worker (each is retried with backoff).",
      readings.failures,
    );
  }
}
