// The system's shape, computed once: the applications, the parts and their listeners, every
// listener's port and browser-facing URL. `npm start` (scripts/system.ts), the process cluster
// (`npm run start:cluster`, packages/cluster), `npm run deploy:local`, the stand-ins' and the account
// app server's defaults and the Kubernetes manifests' test all take it from here, and each part's
// environment is built from it once (packages/cluster/src/service-env.ts). No imports: the browser
// app reads the application ids and development origins from it too.

/** The eight applications one build of the account app serves, each on its own origin. */
export const APPLICATIONS = [
  'platform',
  'magic',
  'admin',
  'dashboard',
  'local',
  'ai',
  'ai-sandbox',
  'ai-uat',
] as const;
export type Application = (typeof APPLICATIONS)[number];

/** The listeners of the system, as `npm start` numbers them (every one moves by the port offset). */
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
  /** Initech's SAML 2.0 IdP stand-in. */
  samlIdp: 4521,
  /** The demo third-party app (a confidential client of the authorization server). */
  demoApp: 4530,
  marketplace: 4540,
  /** The applications: consecutive from 4000 in the order of APPLICATIONS. */
  platform: 4000,
  magic: 4001,
  admin: 4002,
  dashboard: 4003,
  local: 4004,
  ai: 4005,
  'ai-sandbox': 4006,
  'ai-uat': 4007,
  /**
   * The management listeners (GET /metrics, /health/alive, /health/ready, no key): one per process,
   * never behind the load balancer (Prometheus scrapes each instance).
   */
  identityManagement: 9001,
  oauth2Management: 9002,
  usersManagement: 9003,
  agentManagement: 9004,
  accountManagement: 9005,
} as const;

export type Listener = keyof typeof USUAL_PORTS;
export type Ports = Record<Listener, number>;

/** The parts of the system: four services, the account app server, the stand-ins (development). */
export const PARTS = ['identity', 'oauth2', 'users', 'agent', 'account', 'standIns'] as const;
export type Part = (typeof PARTS)[number];

/** Which listeners each part has (each instance of a part gets its own port for every one). */
export const PART_LISTENERS: Record<Part, readonly Listener[]> = {
  identity: ['identityPublic', 'identityAdmin', 'identityManagement'],
  oauth2: ['oauth2Public', 'oauth2Admin', 'oauth2Management'],
  users: ['usersPublic', 'usersAdmin', 'usersManagement'],
  agent: ['agent', 'agentAdmin', 'agentManagement'],
  account: [...APPLICATIONS, 'accountManagement'],
  standIns: ['standIns', 'smtp', 'entra', 'graph', 'orgIdp', 'samlIdp', 'marketplace', 'demoApp'],
};

/**
 * Each part's management listener (metrics and health, no key). Never behind a load balancer:
 * every instance is scraped and probed on its own port.
 */
export const MANAGEMENT_LISTENER: Partial<Record<Part, Listener>> = {
  identity: 'identityManagement',
  oauth2: 'oauth2Management',
  users: 'usersManagement',
  agent: 'agentManagement',
  account: 'accountManagement',
};

/** Each service's admin listener: in a deployment, reached inside the cluster only. */
export const ADMIN_LISTENER = {
  identity: 'identityAdmin',
  oauth2: 'oauth2Admin',
  users: 'usersAdmin',
  agent: 'agentAdmin',
} as const satisfies Partial<Record<Part, Listener>>;

/**
 * The listeners browsers reach, and their host name in a deployment (`<name>.<domain>`, over TLS on
 * 443): the services' public APIs and the applications.
 */
export const PUBLIC_HOSTS: Partial<Record<Listener, string>> = {
  identityPublic: 'id',
  oauth2Public: 'auth',
  usersPublic: 'users',
  agent: 'agent',
  ...Object.fromEntries(APPLICATIONS.map((app) => [app, app])),
};

/** The usual ports plus `offset`. */
export function offsetPorts(offset: number): Ports {
  return Object.fromEntries(
    Object.entries(USUAL_PORTS).map(([name, port]) => [name, port + offset]),
  ) as Ports;
}

export interface ShapeOptions {
  /** Added to every usual port (to run beside `npm start`, or a test's range). */
  offset?: number;
  /** Every port instead (a test's free ports); `offset` is then unused. */
  ports?: Ports;
  /** Where browsers reach the system: `localhost` (default), or a deployment's domain with `tls`. */
  host?: string;
  /**
   * A deployment behind a TLS terminator: every public listener is `https://<name>.<host>` (its
   * PUBLIC_HOSTS name) and every admin listener its in-cluster Service, `http://<part>-admin:<port>`.
   */
  tls?: boolean;
}

export interface SystemShape {
  /** The port every listener binds. */
  ports: Ports;
  /** The URL every listener is reached at (browser-facing for the public ones). */
  listeners: Record<Listener, string>;
  /** Every application's origin. */
  apps: Record<Application, string>;
}

const ADMIN_SERVICE = Object.fromEntries(
  Object.entries(ADMIN_LISTENER).map(([part, listener]) => [listener, `${part}-admin`]),
) as Partial<Record<Listener, string>>;

/** A listener's plain-HTTP URL on `host` (a service's default public URL, from its configured port). */
export function localUrl(port: number, host = 'localhost'): string {
  return `http://${host}:${port}`;
}

function listenerUrl(listener: Listener, port: number, host: string, tls: boolean): string {
  const name = PUBLIC_HOSTS[listener];
  const service = ADMIN_SERVICE[listener];
  if (tls && name) return `https://${name}.${host}`;
  if (tls && service) return `http://${service}:${port}`;
  return localUrl(port, host);
}

/** The system's shape: computed from (offset or ports, host, tls), once per system. */
export function systemShape(options: ShapeOptions = {}): SystemShape {
  const ports = options.ports ?? offsetPorts(options.offset ?? 0);
  const host = options.host ?? 'localhost';
  const tls = options.tls ?? false;
  const listeners = Object.fromEntries(
    Object.entries(ports).map(([name, port]) => [name, listenerUrl(name as Listener, port, host, tls)]),
  ) as Record<Listener, string>;
  const apps = Object.fromEntries(APPLICATIONS.map((app) => [app, listeners[app]])) as Record<
    Application,
    string
  >;
  return { ports, listeners, apps };
}

/** Every application's development origin (the account app's default URL map). */
export function defaultUrlMap(): Record<Application, string> {
  return systemShape().apps;
}

/** MAGIC's Teams host page stand-in, on MAGIC's own origin (teams-js trusts no other http origin). */
export const TEAMS_HOST_PATH = '/dev/teams-host';

/** The system's URLs under the names the launchers print and the journeys use. */
export interface SystemUrls {
  platform: string;
  magic: string;
  /** Every application's origin (Platform, MAGIC, admin, dashboard, local, AI, AI sandbox, AI UAT). */
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
  /** The stand-ins' SMTP catcher (`smtp://host:port`). */
  smtp: string;
  /** Entra stand-in (like https://login.microsoftonline.com). */
  entra: string;
  /** Graph stand-in (like https://graph.microsoft.com). */
  graph: string;
  /** Marketplace stand-in: SaaS Fulfillment API, and the buyer page at `/`. */
  marketplace: string;
  /** Teams host page, served on MAGIC's origin. */
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

/** The shape's listeners under the names of `SystemUrls`. */
export function systemUrls(shape: SystemShape): SystemUrls {
  const l = shape.listeners;
  return {
    platform: l.platform,
    magic: l.magic,
    apps: shape.apps,
    identityPublic: l.identityPublic,
    identityAdmin: l.identityAdmin,
    oauth2Public: l.oauth2Public,
    oauth2Admin: l.oauth2Admin,
    usersPublic: l.usersPublic,
    usersAdmin: l.usersAdmin,
    agent: l.agent,
    agentAdmin: l.agentAdmin,
    mail: l.standIns,
    smtp: `smtp://${new URL(l.smtp).host}`,
    entra: l.entra,
    graph: l.graph,
    marketplace: l.marketplace,
    teamsHost: `${l.magic}${TEAMS_HOST_PATH}`,
    orgIdp: l.orgIdp,
    samlIdp: l.samlIdp,
    demoApp: l.demoApp,
    management: {
      identity: l.identityManagement,
      oauth2: l.oauth2Management,
      users: l.usersManagement,
      agent: l.agentManagement,
      account: l.accountManagement,
    },
  };
}
