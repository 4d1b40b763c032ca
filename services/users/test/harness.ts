import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Database } from '@acme/db';
import { createTestDb, migrate } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { createMemoryMailer } from '@acme/mail';
import type { MailMessage, Mailer } from '@acme/mail';
import type { KyselyPlugin } from 'kysely';
import type { Logger } from 'pino';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { createApp } from '../src/app.ts';
import { runCli } from '../src/cli-commands.ts';
import { loadConfig } from '../src/config.ts';
import type { Config } from '../src/config.ts';
import { migrations } from '../src/migrations.ts';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface StubResponse {
  status: number;
  body?: unknown;
  /** Raw text instead of JSON. */
  text?: string;
}

export type StubHandler = (request: RecordedRequest) => StubResponse | Promise<StubResponse>;

/** A small HTTP server standing in for a service we call; it records every request it gets. */
export interface RecordingServer {
  url: string;
  requests: RecordedRequest[];
  handler: StubHandler;
  close(): Promise<void>;
}

export async function recordingServer(handler: StubHandler): Promise<RecordingServer> {
  const state: RecordingServer = {
    url: '',
    requests: [],
    handler,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined,
      };
      state.requests.push(recorded);
      void Promise.resolve(state.handler(recorded)).then((answer) => {
        if (answer.text !== undefined) {
          res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.text);
        } else if (answer.body === undefined) {
          res.writeHead(answer.status).end();
        } else {
          res
            .writeHead(answer.status, { 'content-type': 'application/json' })
            .end(JSON.stringify(answer.body));
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** A URL nothing listens on. */
export const UNREACHABLE_URL = 'http://127.0.0.1:9';

export interface TestUsersService {
  publicUrl: string;
  adminUrl: string;
  /** The management listener: GET /metrics, /health/alive, /health/ready. */
  managementUrl: string;
  db: Database;
  clock: FakeClock;
  config: Config;
  /** The environment the service was configured from (to start a second instance alike). */
  envUsed: Record<string, string>;
  /** The mailer handed to the app: by default an in-memory one whose `messages` tests read. */
  mailer: Mailer & { messages?: MailMessage[] };
  /** The two servers (for their route tables). */
  app: Awaited<ReturnType<typeof createApp>>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  db?: Database;
  /** Wraps the database handed to the app (e.g. to observe queries). */
  plugin?: KyselyPlugin;
  clock?: FakeClock;
  mailer?: Mailer;
  /** A logger to observe (default: silent). */
  logger?: Logger;
}

/** The user service in process on free ports, on a fresh migrated test database. */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestUsersService> {
  const ownDb = options.db === undefined;
  const db = options.db ?? (await createTestDb());
  await migrate(db, 'users', migrations);
  const clock = options.clock ?? new FakeClock(new Date('2026-03-01T09:00:00.000Z'));
  const envUsed: Record<string, string> = {
    IDENTITY_ADMIN_URL: UNREACHABLE_URL,
    IDENTITY_PUBLIC_URL: UNREACHABLE_URL,
    OAUTH2_ADMIN_URL: UNREACHABLE_URL,
    GIT_OAUTH_TOKEN_URL: UNREACHABLE_URL,
    GIT_API_URL: UNREACHABLE_URL,
    // Generous: the real identity service hashes each new person's password, which on a machine
    // loaded by the whole test run took over 3 s (a CI run's SCIM suite got "The identity service is
    // unreachable" making its first user). No suite on this harness is about the time-out itself.
    UPSTREAM_TIMEOUT_MS: '30000',
    ...options.env,
  };
  const config = loadConfig(envUsed);
  const appDb: Database = options.plugin ? { ...db, kysely: db.kysely.withPlugin(options.plugin) } : db;
  const mailer = options.mailer ?? createMemoryMailer();
  const app = await createApp({ config, db: appDb, clock, logger: options.logger ?? false, mailer });
  await app.public.listen({ host: '127.0.0.1', port: 0 });
  await app.admin.listen({ host: '127.0.0.1', port: 0 });
  const management = await startManagementServer({ host: '127.0.0.1', port: 0, metrics: app.metrics, db });
  return {
    publicUrl: `http://127.0.0.1:${(app.public.server.address() as AddressInfo).port}`,
    adminUrl: `http://127.0.0.1:${(app.admin.server.address() as AddressInfo).port}`,
    managementUrl: management.url,
    db,
    clock,
    config,
    envUsed,
    mailer,
    app,
    close: async () => {
      await closeWithManagement(management, async () => {
        await Promise.all([app.public.close(), app.admin.close()]);
      });
      if (ownDb) await db.close();
    },
  };
}

export interface JsonAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** fetch + JSON, with the body returned as `unknown`-typed `any` for terse assertions. */
export async function http(url: string, init: RequestInit & { json?: unknown } = {}): Promise<JsonAnswer> {
  const { json, ...rest } = init;
  const res = await fetch(url, {
    ...rest,
    headers: json === undefined ? rest.headers : { 'content-type': 'application/json', ...rest.headers },
    body: json === undefined ? rest.body : JSON.stringify(json),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // keep text
  }
  return { status: res.status, headers: res.headers, body };
}

/** Runs the admin CLI in process against `adminUrl`; `json` is stdout parsed, if it is JSON. */
export async function runCliJson(
  adminUrl: string,
  argv: string[],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, {
    env: { USERS_ADMIN_URL: adminUrl },
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  });
  const stdout = out.join('\n');
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr: err.join('\n'), json };
}
