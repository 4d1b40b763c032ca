// Starts every part of the system in this process on one database: what `npm start`
// runs, and what the browser journeys and the sign-in benchmark start for themselves. The system's
// shape (ports, URLs) and every part's environment come from @acme/system-shape and partEnv, as the
// process cluster's do; the stand-ins and the account app server parse theirs with their own
// settings (dev/src/every-stand-in.ts, apps/account/server/serve-applications.ts).
import type { Database } from '@acme/db';
import { start as startIdentity } from '@acme/identity';
import { start as startOAuth2 } from '@acme/oauth2';
import { start as startUsers } from '@acme/users';
import { start as startAgent } from '@acme/agent';
import {
  DEMO_M365_CLIENT_ID,
  DEMO_M365_CLIENT_SECRET,
  DEMO_PUBLISHER_TENANT_ID,
  type OrgIdp,
} from '@acme/dev';
import { startEveryStandIn, type EveryStandIn } from '@acme/dev/every-stand-in';
import { adminKeys, partEnv, type PartEnvOptions } from '@acme/cluster/service-env';
import { systemShape, systemUrls, type Part, type SystemShape, type SystemUrls } from '@acme/system-shape';
import { createMailer, DEFAULT_MAIL_FROM, migrateMail, startOutboxWorker, type Mailer } from '@acme/mail';
import { buildApp } from '@acme/account/serve';
import { loadConfig as loadAccountConfig } from '@acme/account/config';
import { serveApplications } from '@acme/account/serve-applications';
import { createAccountTelemetry } from '@acme/account/telemetry';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { tracingConfigured } from '@acme/service-kit/tracing-gate';
import { newOrgIdpClientSecret, seedDemoSystem } from './demo.ts';

export { LOOPBACK_TEST_LIMITS } from './demo.ts';
export type { SystemUrls } from '@acme/system-shape';

/** The demo app registration of the Entra stand-in, for the user and agent services. */
const DEMO_M365 = {
  clientId: DEMO_M365_CLIENT_ID,
  clientSecret: DEMO_M365_CLIENT_SECRET,
  publisherTenantId: DEMO_PUBLISHER_TENANT_ID,
};

export interface SystemOptions {
  db: Database;
  /** Added to every default port (the journeys use another range than `npm start`). */
  portOffset?: number;
  seed?: boolean;
  /** Service log level; 'silent' for tests. */
  logLevel?: string;
  /** Extra environment per service, e.g. higher rate limits for tests. */
  extraEnv?: Record<string, string>;
  /**
   * One key for every admin API (identity, authorization server, user service): each then needs
   * it as a bearer token, and every caller here sends it. Defaults to ADMIN_KEY in the environment.
   */
  adminKey?: string;
}

export interface RunningSystem {
  urls: SystemUrls;
  /** The organisation identity provider stand-in (rotate its keys, switch faults on). */
  orgIdp: OrgIdp;
  close(): Promise<void>;
}

/** What every step of the start shares: the shape, the database, and what to close at the end. */
interface Context {
  shape: SystemShape;
  db: Database;
  logLevel: string;
  adminKey: string | undefined;
  /** A part's environment: its settings from the shape, the admin keys, the log level, the extras. */
  env(part: Part, options?: PartEnvOptions): Record<string, string>;
  /** Closed in reverse order. */
  closers: (() => Promise<void>)[];
}

function context(options: SystemOptions): Context {
  const shape = systemShape({ offset: options.portOffset ?? 0 });
  const logLevel = options.logLevel ?? 'info';
  const adminKey = options.adminKey ?? (process.env.ADMIN_KEY || undefined);
  return {
    shape,
    db: options.db,
    logLevel,
    adminKey,
    // As the cluster gives each process: the extras last.
    env: (part, partOptions) => ({
      LOG_LEVEL: logLevel,
      ...adminKeys(adminKey),
      ...partEnv(part, shape.ports, shape.listeners, partOptions),
      ...options.extraEnv,
    }),
    closers: [],
  };
}

export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const ctx = context(options);
  const urls = systemUrls(ctx.shape);
  // Globex's provider gets a new client secret each start; the seed stores the same.
  const orgIdpClientSecret = newOrgIdpClientSecret();
  try {
    const standIns = await startStandInsPart(ctx, orgIdpClientSecret);
    const mail = await startMail(ctx);
    await startServices(ctx, mail);
    await startAccountApps(ctx, standIns);
    if (options.seed !== false) {
      await seedDemoSystem(
        urls.usersAdmin,
        ctx.adminKey,
        { issuer: standIns.orgIdp.issuer, clientSecret: orgIdpClientSecret },
        urls.samlIdp,
      );
    }
    return { urls, orgIdp: standIns.orgIdp, close: () => closeAll(ctx.closers) };
  } catch (error) {
    await closeAll(ctx.closers);
    throw error;
  }
}

/** Mailbox and SMTP catcher, GitHub, Microsoft, Globex's and Initech's providers, the demo app. */
async function startStandInsPart(ctx: Context, orgIdpClientSecret: string): Promise<EveryStandIn> {
  const standIns = await startEveryStandIn(ctx.env('standIns', { orgIdpClientSecret }));
  ctx.closers.push(standIns.close);
  return standIns;
}

/** One outbox worker per process delivers what every service queues (the SMTP catcher here). */
async function startMail(
  ctx: Context,
): Promise<{ mailer: Mailer; worker: ReturnType<typeof startOutboxWorker> }> {
  await migrateMail(ctx.db);
  const worker = startOutboxWorker({
    db: ctx.db,
    smtp: { host: '127.0.0.1', port: ctx.shape.ports.smtp },
    from: DEFAULT_MAIL_FROM,
    pollMs: 500,
    ...(ctx.logLevel === 'silent' ? { logger: false as const } : {}),
  });
  ctx.closers.push(() => worker.stop());
  return { mailer: createMailer({ db: ctx.db, onEnqueued: () => worker.wake() }), worker };
}

/** The identity service, the authorization server, the user and the agent services. */
async function startServices(
  ctx: Context,
  mail: { mailer: Mailer; worker: ReturnType<typeof startOutboxWorker> },
): Promise<void> {
  const { db } = ctx;
  const logger = ctx.logLevel === 'silent' ? false : undefined;
  // The one worker of this process: its failures are counted once, in identity's metrics.
  const identity = await startIdentity({
    db,
    env: ctx.env('identity'),
    logger,
    mailer: mail.mailer,
    mailWorker: mail.worker,
  });
  ctx.closers.push(identity.close);
  const oauth2 = await startOAuth2({ db, env: ctx.env('oauth2'), logger });
  ctx.closers.push(oauth2.close);
  const users = await startUsers({
    db,
    env: ctx.env('users', { m365: DEMO_M365 }),
    logger,
    mailer: mail.mailer,
  });
  ctx.closers.push(users.close);
  const agent = await startAgent({ db, env: ctx.env('agent', { m365: DEMO_M365 }), logger });
  ctx.closers.push(agent.close);
}

/**
 * The account app server: one build, eight origins, each application with its runtime
 * configuration from the same settings its own process reads. MAGIC also serves the Teams host page
 * stand-in (teams-js trusts only the app's own http origin), with tokens from the Entra stand-in.
 */
async function startAccountApps(ctx: Context, standIns: EveryStandIn): Promise<void> {
  // Tracing on (the preload found an OTLP endpoint): the browser sends `traceparent` too.
  const config = { ...loadAccountConfig(ctx.env('account')), tracing: tracingConfigured(process.env) };
  const distDir = await buildApp();
  // The account app server's logs and metrics, and its management listener (as its own process has).
  const telemetry = createAccountTelemetry({
    logLevel: ctx.logLevel,
    ...(ctx.logLevel === 'silent' ? { logger: false as const } : {}),
  });
  const management = await startManagementServer({
    ...config.management,
    metrics: telemetry.metrics,
    db: undefined,
  });
  const served: { close(): Promise<void> }[] = [];
  ctx.closers.push(() =>
    closeWithManagement(management, async () => {
      await Promise.all(served.map((s) => s.close()));
      telemetry.metrics.close();
    }),
  );
  const teamsHost = standIns.standIns.microsoft.teamsHost();
  served.push(...(await serveApplications(config, { distDir, telemetry, teamsHost })));
}

async function closeAll(closers: (() => Promise<void>)[]): Promise<void> {
  for (const close of closers.reverse()) {
    try {
      await close();
    } catch {
      // keep closing the rest
    }
  }
}
