// Starts every part of the system in this process on one database: what `npm start`
// runs, and what the browser journeys and the sign-in benchmark start for themselves.
import type { Database } from '@acme/db';
import { start as startIdentity } from '@acme/identity';
import { start as startOAuth2 } from '@acme/oauth2';
import { start as startUsers } from '@acme/users';
import { start as startAgent } from '@acme/agent';
import {
  DEMO_M365_CLIENT_ID,
  DEMO_M365_CLIENT_SECRET,
  DEMO_PUBLISHER_TENANT_ID,
  startOrgIdp,
  startSamlIdp,
  startDemoApp,
  startStandIns,
  TEAMS_HOST_PATH,
  type MicrosoftStandIns,
  type OrgIdp,
} from '@acme/dev';
import { adminKeys, listenerUrls, offsetPorts, partEnv, type Listener } from '@acme/cluster/service-env';
import { createMailer, DEFAULT_MAIL_FROM, migrateMail, startOutboxWorker } from '@acme/mail';
import { buildApp, serveApp } from '@acme/account/serve';
import { createAccountTelemetry } from '@acme/account/telemetry';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { tracingConfigured } from '@acme/service-kit/tracing-gate';
import type { Application } from '@acme/account/config/applications';
import {
  APPLICATIONS,
  DEFAULT_ALLOWED_AUTH_MODES,
  defaultUrlMap,
  parseAllowedAuthModes,
  usesM365,
} from '@acme/account/config/applications';
import { defaultM365Config } from '@acme/account/config/env';
import { newOrgIdpClientSecret, ORG_IDP_CLIENT_ID, seedDemoSystem } from './demo.ts';

export { LOOPBACK_TEST_LIMITS } from './demo.ts';

/** The demo app registration of the Entra stand-in, for the user and agent services. */
const DEMO_M365 = {
  clientId: DEMO_M365_CLIENT_ID,
  clientSecret: DEMO_M365_CLIENT_SECRET,
  publisherTenantId: DEMO_PUBLISHER_TENANT_ID,
};

export interface SystemUrls {
  platform: string;
  magic: string;
  /** Every application's origin (Platform, MAGIC, admin, dashboard, local, AI, AI sandbox, AI UAT: 4000–4007). */
  apps: Record<Application, string>;
  identityPublic: string;
  identityAdmin: string;
  oauth2Public: string;
  oauth2Admin: string;
  usersPublic: string;
  usersAdmin: string;
  agent: string;
  /** Agent service admin API (requests:list). */
  agentAdmin: string;
  /** Stand-ins: mailbox at /mail, GitHub-like host at /github. */
  mail: string;
  /** Entra stand-in (like https://login.microsoftonline.com). */
  entra: string;
  /** Graph stand-in (like https://graph.microsoft.com). */
  graph: string;
  /** Marketplace stand-in: SaaS Fulfillment API, and the buyer page at `/`. */
  marketplace: string;
  /** Teams host page, served on MAGIC's origin (teams-js trusts only the app's own http origin). */
  teamsHost: string;
  /** Globex's identity provider (issuer). */
  orgIdp: string;
  /** Initech's SAML IdP stand-in (entity id: `<url>/metadata`). */
  samlIdp: string;
  /** The demo third-party app (signs a person in through the consent screen, shows their claims). */
  demoApp: string;
  /** Each part's management listener (GET /metrics, /health/alive, /health/ready; no key). */
  management: Record<'identity' | 'oauth2' | 'users' | 'agent' | 'account', string>;
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

export async function startSystem(options: SystemOptions): Promise<RunningSystem> {
  const offset = options.portOffset ?? 0;
  // The usual ports plus the offset, and every service's environment from them (as the cluster's).
  const ports = offsetPorts(offset);
  const listeners = listenerUrls(ports);
  const port = (name: Listener) => ports[name];
  const url = (name: Listener) => listeners[name];
  const urls: SystemUrls = {
    platform: url('platform'),
    magic: url('magic'),
    apps: defaultUrlMap('http://localhost', offset),
    identityPublic: url('identityPublic'),
    identityAdmin: url('identityAdmin'),
    oauth2Public: url('oauth2Public'),
    oauth2Admin: url('oauth2Admin'),
    usersPublic: url('usersPublic'),
    usersAdmin: url('usersAdmin'),
    agent: url('agent'),
    agentAdmin: url('agentAdmin'),
    mail: url('standIns'),
    entra: url('entra'),
    graph: url('graph'),
    marketplace: url('marketplace'),
    teamsHost: `${url('magic')}${TEAMS_HOST_PATH}`,
    orgIdp: url('orgIdp'),
    samlIdp: url('samlIdp'),
    demoApp: url('demoApp'),
    management: {
      identity: url('identityManagement'),
      oauth2: url('oauth2Management'),
      users: url('usersManagement'),
      agent: url('agentManagement'),
      account: url('accountManagement'),
    },
  };
  const appOrigins = APPLICATIONS.map((app) => urls.apps[app]);
  const logLevel = options.logLevel ?? 'info';
  const adminKey = options.adminKey ?? (process.env.ADMIN_KEY || undefined);
  const common = { LOG_LEVEL: logLevel, ...adminKeys(adminKey), ...options.extraEnv };
  const closers: (() => Promise<void>)[] = [];
  const db = options.db;
  let orgIdp: OrgIdp | undefined;
  // The identity service's client at Globex's provider; a new secret each start (the seed stores it).
  const orgIdpClient = {
    clientId: ORG_IDP_CLIENT_ID,
    clientSecret: newOrgIdpClientSecret(),
    redirectUris: [`${urls.identityPublic}/self-service/methods/oidc/callback/globex`],
  };

  try {
    const standIns = await startStandIns({
      httpPort: port('standIns'),
      smtpPort: port('smtp'),
      microsoft: {
        entraPort: port('entra'),
        graphPort: port('graph'),
        marketplacePort: port('marketplace'),
        appOrigins,
        marketplace: {
          landingPageUrl: `${urls.magic}/account/m365-login`,
          webhookUrl: `${urls.usersPublic}/m365/marketplace/webhook`,
        },
      },
    });
    closers.push(standIns.close);
    const microsoft = standIns.microsoft as MicrosoftStandIns;
    const idp = await startOrgIdp({ port: port('orgIdp'), clients: [orgIdpClient] });
    orgIdp = idp;
    closers.push(idp.close);
    const samlIdp = await startSamlIdp({ port: port('samlIdp') });
    closers.push(samlIdp.close);
    // A third party's web app: registers its client at the authorization server at its first sign-in.
    const demoApp = await startDemoApp({
      port: port('demoApp'),
      issuer: urls.oauth2Public,
      oauth2AdminUrl: urls.oauth2Admin,
      oauth2AdminKey: adminKey,
    });
    closers.push(demoApp.close);

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
        ...partEnv('identity', ports, listeners),
      },
      logger: logLevel === 'silent' ? false : undefined,
      mailer,
      // The one worker of this process: its failures are counted once, in identity's metrics.
      mailWorker: worker,
    });
    closers.push(identity.close);

    const oauth2 = await startOAuth2({
      db,
      env: {
        ...common,
        ...partEnv('oauth2', ports, listeners),
      },
      logger: logLevel === 'silent' ? false : undefined,
    });
    closers.push(oauth2.close);

    const users = await startUsers({
      db,
      env: {
        ...common,
        ...partEnv('users', ports, listeners, { m365: DEMO_M365 }),
      },
      logger: logLevel === 'silent' ? false : undefined,
      mailer,
    });
    closers.push(users.close);

    const agent = await startAgent({
      db,
      env: {
        ...common,
        ...partEnv('agent', ports, listeners, { m365: DEMO_M365 }),
      },
      logger: logLevel === 'silent' ? false : undefined,
    });
    closers.push(agent.close);

    const distDir = await buildApp();
    // The account app server's logs and metrics, and its management listener (as its own process has).
    const telemetry = createAccountTelemetry({
      logLevel,
      ...(logLevel === 'silent' ? { logger: false as const } : {}),
    });
    const accountManagement = await startManagementServer({
      host: '127.0.0.1',
      port: port('accountManagement'),
      metrics: telemetry.metrics,
      db: undefined,
    });
    const accountServers: (() => Promise<void>)[] = [];
    closers.push(() =>
      closeWithManagement(accountManagement, async () => {
        await Promise.all(accountServers.map((close) => close()));
        telemetry.metrics.close();
      }),
    );
    const appConfig = {
      identityUrl: urls.identityPublic,
      oauth2Url: urls.oauth2Public,
      usersUrl: urls.usersPublic,
      agentUrl: urls.agent,
      urlMap: urls.apps,
      offerUrl: `${urls.marketplace}/`,
      // Tracing on (the preload found an OTLP endpoint): the browser sends `traceparent` too.
      ...(tracingConfigured(process.env) ? { tracing: true } : {}),
    };
    // One build, eight origins: each application is the same files with its own runtime configuration.
    // MAGIC and local sign in with Microsoft 365 too: MSAL is pointed at the Entra stand-in (whose app
    // registration accepts every application origin as a redirect URI) and the offer's set-up link is
    // the marketplace stand-in's buyer page. The Teams host page (stand-in) must share MAGIC's
    // origin: teams-js trusts only https or the app's own origin.
    // The admin application allows m365 too (its configured list), for Microsoft 365 organisations' admins.
    const authModes = parseAllowedAuthModes(DEFAULT_ALLOWED_AUTH_MODES);
    for (const application of APPLICATIONS) {
      const served = await serveApp({
        port: Number(new URL(urls.apps[application]).port),
        application,
        distDir,
        config: usesM365(application, authModes)
          ? {
              ...appConfig,
              allowedAuthModes: authModes[application],
              m365: {
                ...defaultM365Config(),
                clientId: DEMO_M365_CLIENT_ID,
                entraUrl: microsoft.urls.entra,
                subscriptionUrl: `${microsoft.urls.marketplace}/`,
              },
            }
          : appConfig,
        ...(application === 'magic' ? { devHandler: microsoft.teamsHost() } : {}),
        telemetry,
      });
      accountServers.push(served.close);
    }

    if (options.seed !== false) {
      await seedDemoSystem(
        urls.usersAdmin,
        adminKey,
        { issuer: idp.issuer, clientSecret: orgIdpClient.clientSecret },
        url('samlIdp'),
      );
    }
  } catch (error) {
    await closeAll(closers);
    throw error;
  }

  return { urls, orgIdp: orgIdp!, close: () => closeAll(closers) };
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
