// The system as separate processes on one PostgreSQL database: each part on its own entry point,
// optionally several instances of each behind a round-robin proxy on the browser-facing port.
import { freePortsApart } from './free-ports.ts';
import { spawnPart, stopAll, type Part, type ServiceProcess, type SpawnOptions } from './processes.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './proxy.ts';

/** The listeners of the system, as `npm start` numbers them. */
export const USUAL_PORTS = {
  identityPublic: 4433,
  identityAdmin: 4434,
  oauth2Public: 4444,
  oauth2Admin: 4445,
  usersPublic: 4455,
  usersAdmin: 4456,
  agent: 4466,
  agentAdmin: 4467,
  standIns: 4500,
  smtp: 2525,
  entra: 4510,
  graph: 4511,
  orgIdp: 4520,
  marketplace: 4540,
  platform: 4000,
  magic: 4001,
  admin: 4002,
  dashboard: 4003,
  local: 4004,
  ai: 4005,
  'ai-sandbox': 4006,
  'ai-uat': 4007,
} as const;

export type Listener = keyof typeof USUAL_PORTS;
export type Ports = Record<Listener, number>;

const APPS = ['platform', 'magic', 'admin', 'dashboard', 'local', 'ai', 'ai-sandbox', 'ai-uat'] as const;

/** Which listeners each part has (each instance of a part gets its own port for every one). */
export const PART_LISTENERS: Record<Part, readonly Listener[]> = {
  identity: ['identityPublic', 'identityAdmin'],
  oauth2: ['oauth2Public', 'oauth2Admin'],
  users: ['usersPublic', 'usersAdmin'],
  agent: ['agent', 'agentAdmin'],
  account: APPS,
  standIns: ['standIns', 'smtp', 'entra', 'graph', 'orgIdp', 'marketplace'],
};

/** Where each part answers once it is up. */
const READY_LISTENER: Record<Part, { listener: Listener; path: string }> = {
  identity: { listener: 'identityAdmin', path: '/health/ready' },
  oauth2: { listener: 'oauth2Admin', path: '/health/ready' },
  users: { listener: 'usersAdmin', path: '/health/ready' },
  agent: { listener: 'agentAdmin', path: '/health/ready' },
  account: { listener: 'platform', path: '/account/' },
  standIns: { listener: 'standIns', path: '/health' },
};

export interface ClusterOptions {
  /** PostgreSQL for every process; without it each process has its own in-memory PGlite. */
  databaseUrl?: string;
  /** Parts to start, in this order (stand-ins first if at all: the others' mail goes there). */
  parts: Part[];
  /** Instances per part (the stand-ins always run once: their state is in memory). */
  instances?: number;
  /** Browser-facing ports (the proxies', or the single instance's); the usual ones by default. */
  ports?: Partial<Ports>;
  /** One key for every admin API (at least 32 characters), or none (loopback admin APIs). */
  adminKey?: string;
  /** Client secret of the identity service at the organisation IdP stand-in (the seed stores it). */
  orgIdpClientSecret?: string;
  /** A prebuilt account app (`vite build` output); the account part needs one. */
  accountDistDir?: string;
  logLevel?: string;
  /** Extra environment for every part. */
  extraEnv?: Record<string, string>;
  inheritOutput?: boolean;
}

export interface RunningCluster {
  /** Browser-facing URL of every listener. */
  urls: Record<Listener, string>;
  processes: ServiceProcess[];
  proxies: RoundRobinProxy[];
  /**
   * Starts the named process again with the environment it first had (after it exited, for example
   * after a `kill -9`), replacing it in `processes`; resolves once it is ready.
   */
  restart(name: string): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/** Starts the parts as child processes; with `instances` > 1, a round-robin proxy per listener. */
export async function startProcessCluster(options: ClusterOptions): Promise<RunningCluster> {
  const ports: Ports = { ...USUAL_PORTS, ...options.ports };
  const urls = Object.fromEntries(
    Object.entries(ports).map(([name, port]) => [name, `http://localhost:${port}`]),
  ) as Record<Listener, string>;
  const processes: ServiceProcess[] = [];
  const proxies: RoundRobinProxy[] = [];
  const specs = new Map<string, { part: Part; options: SpawnOptions }>();
  const close = async () => {
    await Promise.all(proxies.map((p) => p.close().catch(() => undefined)));
    await stopAll(processes);
  };
  try {
    for (const part of options.parts) {
      const count = part === 'standIns' ? 1 : (options.instances ?? 1);
      const instancePorts: Ports[] = [];
      for (let i = 0; i < count; i++) {
        const own: Ports = { ...ports };
        // One instance listens on the browser-facing ports itself; several sit behind proxies there.
        if (count > 1) {
          const apart = await freePortsApart(PART_LISTENERS[part].length);
          PART_LISTENERS[part].forEach((listener, k) => (own[listener] = apart[k]!));
        }
        instancePorts.push(own);
      }
      const started = await Promise.all(
        instancePorts.map((own, i) => {
          const ready = READY_LISTENER[part];
          const spawnOptions: SpawnOptions = {
            name: count > 1 ? `${part}-${i + 1}` : part,
            env: {
              ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
              LOG_LEVEL: options.logLevel ?? 'warn',
              ...adminKeys(options.adminKey),
              ...partEnv(part, own, urls, options),
              // Behind a proxy, per-IP limits and recorded addresses take the client's from
              // X-Forwarded-For (identity and oauth2 have their own variable, users and agent TRUST_PROXY).
              ...(count > 1
                ? { IDENTITY_TRUST_PROXY: 'true', OAUTH2_TRUST_PROXY: 'true', TRUST_PROXY: 'true' }
                : {}),
              ...options.extraEnv,
            },
            readyUrl: `http://127.0.0.1:${own[ready.listener]}${ready.path}`,
            inheritOutput: options.inheritOutput ?? false,
          };
          specs.set(spawnOptions.name, { part, options: spawnOptions });
          return spawnPart(part, spawnOptions);
        }),
      );
      processes.push(...started);
      if (count > 1) {
        for (const listener of PART_LISTENERS[part]) {
          proxies.push(
            await startRoundRobinProxy({
              port: ports[listener],
              targets: instancePorts.map((own) => `http://127.0.0.1:${own[listener]}`),
            }),
          );
        }
      }
    }
  } catch (error) {
    await close();
    throw error;
  }
  const restart = async (name: string) => {
    const spec = specs.get(name);
    const index = processes.findIndex((p) => p.name === name);
    if (!spec || index < 0) throw new Error(`no process named ${name}`);
    await processes[index]!.stop(2_000);
    const again = await spawnPart(spec.part, spec.options);
    processes[index] = again;
    return again;
  };
  return { urls, processes, proxies, restart, close };
}

function adminKeys(key: string | undefined): Record<string, string> {
  if (!key) return {};
  return {
    IDENTITY_ADMIN_KEY: key,
    OAUTH2_ADMIN_KEY: key,
    USERS_ADMIN_KEY: key,
    AGENT_ADMIN_KEY: key,
  };
}

/** The environment of one instance: its own ports, and everything else's browser-facing URLs. */
export function partEnv(
  part: Part,
  own: Ports,
  urls: Record<Listener, string>,
  options: Pick<ClusterOptions, 'orgIdpClientSecret' | 'accountDistDir'>,
): Record<string, string> {
  const appOrigins = APPS.map((app) => urls[app]);
  const smtp = `smtp://127.0.0.1:${own.smtp}`;
  const orgIdpCallback = `${urls.identityPublic}/self-service/methods/oidc/callback/globex`;
  switch (part) {
    case 'identity':
      return {
        IDENTITY_PUBLIC_PORT: String(own.identityPublic),
        IDENTITY_ADMIN_PORT: String(own.identityAdmin),
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
        SMTP_URL: smtp,
      };
    case 'oauth2':
      return {
        ISSUER: urls.oauth2Public,
        OAUTH2_PUBLIC_PORT: String(own.oauth2Public),
        OAUTH2_ADMIN_PORT: String(own.oauth2Admin),
        APP_ORIGINS: APPS.map((app) => `${app}=${urls[app]}`).join(','),
        USERS_ADMIN_URL: urls.usersAdmin,
      };
    case 'users':
      return {
        USERS_PUBLIC_PORT: String(own.usersPublic),
        USERS_ADMIN_PORT: String(own.usersAdmin),
        IDENTITY_ADMIN_URL: urls.identityAdmin,
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        APP_ORIGINS: appOrigins.join(','),
        APP_BASE_URL: urls.platform,
        GIT_OAUTH_AUTHORIZE_URL: `${urls.standIns}/github/login/oauth/authorize`,
        GIT_OAUTH_TOKEN_URL: `${urls.standIns}/github/login/oauth/access_token`,
        GIT_API_URL: `${urls.standIns}/github/api`,
        M365_AUTHORITY_URL: urls.entra,
        M365_OFFER_URL: `${urls.marketplace}/`,
        GRAPH_URL: urls.graph,
        MARKETPLACE_API_URL: urls.marketplace,
        AGENT_URL: urls.agent,
        SMTP_URL: smtp,
      };
    case 'agent':
      return {
        AGENT_PORT: String(own.agent),
        AGENT_ADMIN_PORT: String(own.agentAdmin),
        APP_ORIGINS: appOrigins.join(','),
        // It verifies the caller's Microsoft token as the user service does.
        M365_AUTHORITY_URL: urls.entra,
      };
    case 'account':
      return {
        APP_URLS: APPS.map((app) => `${app}=${urls[app]}`).join(','),
        ACCOUNT_PORTS: APPS.map((app) => `${app}=${own[app]}`).join(','),
        IDENTITY_PUBLIC_URL: urls.identityPublic,
        OAUTH2_PUBLIC_URL: urls.oauth2Public,
        USERS_PUBLIC_URL: urls.usersPublic,
        AGENT_URL: urls.agent,
        ENTRA_URL: urls.entra,
        M365_SUBSCRIPTION_URL: `${urls.marketplace}/`,
        OFFER_URL: `${urls.marketplace}/`,
        SSO_PROVIDER_ORIGINS: urls.orgIdp,
        // MAGIC's Teams host page stand-in, on MAGIC's origin (its tokens come from the Entra stand-in).
        DEV_TEAMS_HOST: 'true',
        ...(options.accountDistDir ? { ACCOUNT_DIST_DIR: options.accountDistDir } : {}),
      };
    case 'standIns':
      return {
        STANDINS_HTTP_PORT: String(own.standIns),
        STANDINS_SMTP_PORT: String(own.smtp),
        ENTRA_PORT: String(own.entra),
        GRAPH_PORT: String(own.graph),
        MARKETPLACE_PORT: String(own.marketplace),
        ORG_IDP_PORT: String(own.orgIdp),
        APP_ORIGINS: appOrigins.join(','),
        MARKETPLACE_LANDING_URL: `${urls.magic}/account/m365-login`,
        MARKETPLACE_WEBHOOK_URL: `${urls.usersPublic}/m365/marketplace/webhook`,
        ORG_IDP_REDIRECT_URI: orgIdpCallback,
        ...(options.orgIdpClientSecret ? { ORG_IDP_CLIENT_SECRET: options.orgIdpClientSecret } : {}),
      };
  }
}
