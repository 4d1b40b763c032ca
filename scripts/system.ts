// Starts every part of the system in this process on one database: what `npm start`
// runs, and what the browser journeys and the sign-in benchmark start for themselves.
import type { Database } from '@acme/db';
import { start as startIdentity } from '@acme/identity';
import { start as startOAuth2 } from '@acme/oauth2';
import { start as startUsers, seedDemo } from '@acme/users';
import { start as startAgent } from '@acme/agent';
import { randomBytes } from 'node:crypto';
import { startOrgIdp, type OrgIdp } from '@acme/dev';
import { startStandIns } from '@acme/dev';
import { createMailer, DEFAULT_MAIL_FROM, migrateMail, startOutboxWorker } from '@acme/mail';
import { buildApp, serveApp } from '../apps/account/server/serve.ts';

export const DEFAULT_PORTS = {
  platform: 4000,
  magic: 4001,
  identityPublic: 4433,
  identityAdmin: 4434,
  oauth2Public: 4444,
  oauth2Admin: 4445,
  usersPublic: 4455,
  usersAdmin: 4456,
  agent: 4466,
  standIns: 4500,
  /** Organisation Globex's identity provider (stand-in for its Okta or Entra ID). */
  orgIdp: 4520,
  smtp: 2525,
} as const;

export type PortName = keyof typeof DEFAULT_PORTS;

/** Per-IP limits raised for the journeys and benchmarks, where every request comes from 127.0.0.1. */
export const LOOPBACK_TEST_LIMITS: Record<string, string> = {
  LOGIN_CONFIG_RATE_LIMIT: '100000',
  IDENTITY_IP_FAILURE_LIMIT: '100000',
  INVITATION_STATUS_RATE_LIMIT: '100000',
};

export interface SystemUrls {
  platform: string;
  magic: string;
  identityPublic: string;
  identityAdmin: string;
  oauth2Public: string;
  oauth2Admin: string;
  usersPublic: string;
  usersAdmin: string;
  agent: string;
  /** Stand-ins: mailbox at /mail, GitHub-like host at /github. */
  mail: string;
  /** Globex's identity provider (issuer). */
  orgIdp: string;
}

export interface SystemOptions {
  db: Database;
  /** Added to every default port (the journeys use another range than `npm start`). */
  portOffset?: number;
  seed?: boolean;
  /** Service log level; 'silent' for tests. */
  logLevel?: string;
  /** Extra environment per service, e.g. higher rate limits for tests. */
  extraEnv?: Record<string, string>;
}

export interface RunningSystem {
  urls: SystemUrls;
  /** The organisation identity provider stand-in (rotate its keys, switch faults on). */
  orgIdp: OrgIdp;
  close(): Promise<void>;
}

export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const offset = options.portOffset ?? 0;
  const port = (name: PortName) => DEFAULT_PORTS[name] + offset;
  const url = (name: PortName) => `http://localhost:${port(name)}`;
  const urls: SystemUrls = {
    platform: url('platform'),
    magic: url('magic'),
    identityPublic: url('identityPublic'),
    identityAdmin: url('identityAdmin'),
    oauth2Public: url('oauth2Public'),
    oauth2Admin: url('oauth2Admin'),
    usersPublic: url('usersPublic'),
    usersAdmin: url('usersAdmin'),
    agent: url('agent'),
    mail: url('standIns'),
    orgIdp: url('orgIdp'),
  };
  const appOrigins = [urls.platform, urls.magic];
  const logLevel = options.logLevel ?? 'info';
  const common = { LOG_LEVEL: logLevel, ...options.extraEnv };
  const closers: (() => Promise<void>)[] = [];
  const db = options.db;
  let orgIdp: OrgIdp | undefined;
  // The identity service's client at Globex's provider; a new secret each start (the seed stores it).
  const orgIdpClient = {
    clientId: 'acme-platform',
    clientSecret: randomBytes(24).toString('base64url'),
    redirectUris: [`${urls.identityPublic}/self-service/methods/oidc/callback/globex`],
  };

  try {
    const standIns = await startStandIns({ httpPort: port('standIns'), smtpPort: port('smtp') });
    closers.push(standIns.close);
    const idp = await startOrgIdp({ port: port('orgIdp'), clients: [orgIdpClient] });
    orgIdp = idp;
    closers.push(idp.close);

    // One outbox worker per process delivers what every service queues (SMTP catcher in development).
    await migrateMail(db);
    const worker = startOutboxWorker({
      db,
      smtp: { host: '127.0.0.1', port: port('smtp') },
      from: DEFAULT_MAIL_FROM,
      pollMs: 500,
      ...(logLevel === 'silent' ? { logger: false as const } : {}),
    });
    closers.push(() => worker.stop());
    const mailer = createMailer({ db, onEnqueued: () => worker.wake() });

    const identity = await startIdentity({
      db,
      env: {
        ...common,
        IDENTITY_PUBLIC_PORT: String(port('identityPublic')),
        IDENTITY_ADMIN_PORT: String(port('identityAdmin')),
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        IDENTITY_ADMIN_URL: urls.identityAdmin,
        IDENTITY_LOGIN_UI_URL: `${urls.platform}/account/login`,
        IDENTITY_ERROR_UI_URL: `${urls.platform}/account/error`,
        IDENTITY_SETTINGS_UI_URL: `${urls.platform}/account/profile`,
        IDENTITY_RECOVERY_UI_URL: `${urls.platform}/account/forgot-password`,
        IDENTITY_VERIFICATION_UI_URL: `${urls.platform}/account/verification`,
        IDENTITY_DEFAULT_RETURN_URL: `${urls.platform}/`,
        IDENTITY_CORS_ORIGINS: appOrigins.join(','),
        IDENTITY_ALLOWED_RETURN_URLS: [...appOrigins, urls.oauth2Public].join(','),
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
        IDENTITY_USERS_ADMIN_URL: urls.usersAdmin,
      },
      logger: logLevel === 'silent' ? false : undefined,
      mailer,
    });
    closers.push(identity.close);

    const oauth2 = await startOAuth2({
      db,
      env: {
        ...common,
        ISSUER: urls.oauth2Public,
        OAUTH2_PUBLIC_PORT: String(port('oauth2Public')),
        OAUTH2_ADMIN_PORT: String(port('oauth2Admin')),
        APP_ORIGINS: `platform=${urls.platform},magic=${urls.magic}`,
      },
      logger: logLevel === 'silent' ? false : undefined,
    });
    closers.push(oauth2.close);

    const users = await startUsers({
      db,
      env: {
        ...common,
        USERS_PUBLIC_PORT: String(port('usersPublic')),
        USERS_ADMIN_PORT: String(port('usersAdmin')),
        IDENTITY_ADMIN_URL: urls.identityAdmin,
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        APP_ORIGINS: appOrigins.join(','),
        APP_BASE_URL: urls.platform,
        GIT_OAUTH_AUTHORIZE_URL: `${urls.mail}/github/login/oauth/authorize`,
        GIT_OAUTH_TOKEN_URL: `${urls.mail}/github/login/oauth/access_token`,
        GIT_API_URL: `${urls.mail}/github/api`,
      },
      logger: logLevel === 'silent' ? false : undefined,
      mailer,
    });
    closers.push(users.close);

    const agent = await startAgent({
      db,
      env: { ...common, AGENT_PORT: String(port('agent')), APP_ORIGINS: appOrigins.join(',') },
      logger: logLevel === 'silent' ? false : undefined,
    });
    closers.push(agent.close);

    const distDir = await buildApp();
    const appConfig = {
      identityUrl: urls.identityPublic,
      oauth2Url: urls.oauth2Public,
      usersUrl: urls.usersPublic,
      agentUrl: urls.agent,
      urlMap: { platform: urls.platform, magic: urls.magic },
    };
    const platform = await serveApp({
      port: port('platform'),
      application: 'platform',
      distDir,
      config: appConfig,
      ssoProviderOrigins: [urls.orgIdp, ...ssoFormOrigins()],
    });
    closers.push(platform.close);
    const magic = await serveApp({
      port: port('magic'),
      application: 'magic',
      distDir,
      config: appConfig,
      ssoProviderOrigins: [urls.orgIdp, ...ssoFormOrigins()],
    });
    closers.push(magic.close);

    if (options.seed !== false) await seedDemo(urls.usersAdmin, { issuer: idp.issuer, ...orgIdpClient });
  } catch (error) {
    await closeAll(closers);
    throw error;
  }

  return { urls, orgIdp: orgIdp!, close: () => closeAll(closers) };
}

/** `SSO_PROVIDER_ORIGINS`: comma-separated origins of real identity providers pointed at this system. */
function ssoFormOrigins(): string[] {
  return (process.env.SSO_PROVIDER_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => URL.canParse(s))
    .map((s) => new URL(s).origin);
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
