import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Database } from '@acme/db';
import { metricsText, type ServiceMetrics } from './metrics.ts';

/**
 * The management listener of a service: `GET /metrics`, `GET /health/alive` and `GET /health/ready`,
 * with no key and nothing else. It is a separate port from the public and admin APIs (a plain Node
 * server, not the service's Fastify app), so a scraper or an orchestrator's probe never holds the
 * admin key, and no request to it can reach an admin route: any other path or method is a 404 here.
 * It has no Host allow-list, so Prometheus can address each instance by its pod IP; it serves no
 * secret and changes nothing.
 */
export interface ManagementServer {
  /** `http://localhost:<port>`. */
  readonly url: string;
  readonly port: number;
  /** From now on `/health/ready` answers 503: the process is draining. */
  drain(): void;
  /** Stops listening (after the service's own listeners have drained). */
  close(): Promise<void>;
}

export interface ManagementOptions {
  host: string;
  port: number;
  /** The service whose metrics `/metrics` serves (in `npm start`, each port its own service's). */
  metrics: ServiceMetrics;
  /**
   * The service's database: `/health/ready` answers 200 only while a `select 1` succeeds on it.
   * None for a part without one (the account app server): ready until it drains.
   */
  db: Database | undefined;
  /** How long a readiness check waits for the database (ms, 2 s by default). */
  readyTimeoutMs?: number;
}

/** The three routes, in one place (the probes of the deployment and the tests use them). */
export const MANAGEMENT_PATHS = {
  metrics: '/metrics',
  alive: '/health/alive',
  ready: '/health/ready',
} as const;

const DEFAULT_READY_TIMEOUT_MS = 2_000;

/** `<PREFIX>_MANAGEMENT_PORT` and `<PREFIX>_MANAGEMENT_HOST` of one service, with its default port. */
export function managementEnvSchema<P extends string>(prefix: P, defaultPort: number) {
  return z.object({
    [`${prefix}_MANAGEMENT_PORT`]: z.coerce
      .number()
      .int()
      .min(0)
      .max(65535)
      .default(defaultPort)
      .describe(
        'Port of the management listener: GET /metrics, /health/alive and /health/ready with no key, nothing else.',
      ),
    [`${prefix}_MANAGEMENT_HOST`]: z
      .string()
      .trim()
      .min(1)
      .default('127.0.0.1')
      .describe(
        'Interface the management listener binds (loopback by default; 0.0.0.0 in a container, so Prometheus and the probes reach it by pod IP).',
      ),
  } as unknown as Record<`${P}_MANAGEMENT_PORT` | `${P}_MANAGEMENT_HOST`, z.ZodType>);
}

export interface ManagementConfig {
  host: string;
  port: number;
}

/** The management listener's settings from a service's environment (throws on a bad value). */
export function managementConfig(
  prefix: string,
  defaultPort: number,
  env: Record<string, string | undefined>,
): ManagementConfig {
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = managementEnvSchema(prefix, defaultPort).parse(set) as Record<string, unknown>;
  return Object.freeze({
    port: parsed[`${prefix}_MANAGEMENT_PORT`] as number,
    host: parsed[`${prefix}_MANAGEMENT_HOST`] as string,
  });
}

/** Resolves when the database answers `select 1` within `timeoutMs`, else rejects. */
async function databaseAnswers(db: Database, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('database check timed out')), timeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(db.kysely), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

const JSON_TYPE = 'application/json; charset=utf-8';

export async function startManagementServer(options: ManagementOptions): Promise<ManagementServer> {
  const readyTimeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  let draining = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET') return send(res, 404, 'text/plain; charset=utf-8', 'Not Found\n');
    switch (path) {
      case MANAGEMENT_PATHS.alive:
        return send(res, 200, JSON_TYPE, JSON.stringify({ status: 'ok' }));
      case MANAGEMENT_PATHS.ready: {
        if (draining) return send(res, 503, JSON_TYPE, JSON.stringify({ status: 'draining' }));
        try {
          if (options.db) await databaseAnswers(options.db, readyTimeoutMs);
        } catch {
          return send(res, 503, JSON_TYPE, JSON.stringify({ status: 'database_unreachable' }));
        }
        // Draining may have begun while the database answered.
        if (draining) return send(res, 503, JSON_TYPE, JSON.stringify({ status: 'draining' }));
        return send(res, 200, JSON_TYPE, JSON.stringify({ status: 'ok' }));
      }
      case MANAGEMENT_PATHS.metrics: {
        const { contentType, text } = await metricsText(options.metrics);
        return send(res, 200, contentType, text);
      }
      default:
        return send(res, 404, 'text/plain; charset=utf-8', 'Not Found\n');
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', 'Internal Server Error\n');
      else res.end();
    });
  });
  // Probes and scrapes are small and quick: no slow client holds a socket for long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    port,
    drain() {
      draining = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.keepAliveTimeout = 1;
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

/**
 * A service's close with its management listener: readiness turns 503 first, then the service's
 * listeners drain (`closeService`), then the management listener stops.
 */
export async function closeWithManagement(
  management: ManagementServer | undefined,
  closeService: () => Promise<void>,
): Promise<void> {
  management?.drain();
  try {
    await closeService();
  } finally {
    await management?.close();
  }
}
