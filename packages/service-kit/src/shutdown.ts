import type { FastifyInstance } from 'fastify';

/** How long in-flight requests get to finish after SIGTERM before the process stops anyway. */
export const DRAIN_TIMEOUT_MS = 10_000;

export interface DrainIo {
  log(line: string): void;
  exit(code: number): void;
  /** Where the signals come from (the process). */
  signals: { once(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown };
}

const beforeExit: (() => Promise<void>)[] = [];

/** Work a drained process finishes before it exits: the trace exporter's last batch (tracing.ts). */
export function beforeDrainedExit(hook: () => Promise<void>): void {
  beforeExit.push(hook);
}

const processIo: DrainIo = {
  log: (line) => process.stderr.write(`${line}\n`),
  exit: (code) => process.exit(code),
  signals: process,
};

/**
 * Graceful stop for an entry point: on SIGTERM (or SIGINT) `close` stops the listeners accepting
 * and waits for the requests in flight; the process then exits 0. If that takes longer than
 * `timeoutMs` (default 10 s) it exits 1 anyway, so an orchestrator's kill deadline is never the
 * thing that ends it. A second signal while draining exits at once.
 */
export function drainOnSignals(
  name: string,
  close: () => Promise<void>,
  options: { timeoutMs?: number; io?: DrainIo } = {},
): void {
  const io = options.io ?? processIo;
  const timeoutMs = options.timeoutMs ?? DRAIN_TIMEOUT_MS;
  const line = (level: string, msg: string) => io.log(JSON.stringify({ level, name, msg }));
  let draining = false;
  const onSignal = (signal: string) => () => {
    if (draining) {
      line('warn', `${signal} again while draining: stopping now`);
      io.exit(1);
      return;
    }
    draining = true;
    line('info', `${signal}: no new connections; finishing requests in flight (up to ${timeoutMs} ms)`);
    const deadline = setTimeout(() => {
      line('error', `requests still in flight after ${timeoutMs} ms: stopping anyway`);
      io.exit(1);
    }, timeoutMs);
    close()
      .then(() => Promise.allSettled(beforeExit.map((hook) => hook())))
      .then(
        () => {
          clearTimeout(deadline);
          line('info', 'drained: stopped');
          io.exit(0);
        },
        (err: unknown) => {
          clearTimeout(deadline);
          line('error', `closing failed: ${err instanceof Error ? err.message : String(err)}`);
          io.exit(1);
        },
      );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    // Listen again after the first signal, for the "second signal" case.
    const handler = onSignal(signal);
    io.signals.once(signal, () => {
      io.signals.once(signal, handler);
      handler();
    });
  }
}

/**
 * Once the server is closing, every response still being written says `Connection: close`, so the
 * keep-alive connection it came on ends with it. Otherwise a client (or a load balancer) that keeps
 * connections open would hold the drain until the deadline.
 */
export function hangUpWhenClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply) => {
    if (closing) reply.header('connection', 'close');
  });
}
