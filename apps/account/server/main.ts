// The account app server on its own process: `npm start -w @acme/account`. Serves the one build
// for each application on its own port, with each application's runtime configuration.
//
// Environment (every variable optional; the defaults are `npm start`'s):
//   ACCOUNT_APPS          applications to serve, comma-separated (default: all eight)
//   APP_URLS              browser-facing origin per application: `platform=https://…,magic=https://…`
//   ACCOUNT_PORTS         port to listen on per application, when it is not the port of its URL
//   ACCOUNT_HOST          interface to bind (127.0.0.1; `0.0.0.0` in a container)
//   IDENTITY_PUBLIC_URL, OAUTH2_PUBLIC_URL, USERS_PUBLIC_URL, AGENT_URL   the services' public APIs
//   M365_CLIENT_ID, ENTRA_URL, M365_SUBSCRIPTION_URL, OFFER_URL          MAGIC's and local's Microsoft 365 settings
//   ALLOWED_AUTH_MODES    configured authentication modes per application (default `admin=ory+m365`:
//                         the admin application's console for Microsoft 365 organisations' admins)
//   ACCOUNT_DIST_DIR      a prebuilt `vite build` (the container image has one); else it is built here
//   DEV_TEAMS_HOST=true   development only (refused with NODE_ENV=production): MAGIC also serves the
//                         Microsoft Teams host page stand-in, which gets its tokens from ENTRA_URL
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '@acme/service-kit/config';
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { tracingConfigured } from '@acme/service-kit/tracing-gate';
import { z } from 'zod';
import {
  APPLICATIONS,
  DEFAULT_ALLOWED_AUTH_MODES,
  defaultUrlMap,
  parseAllowedAuthModes,
  usesM365,
  type Application,
} from '../src/shared/config/applications.ts';
import { defaultM365Config } from '../src/shared/config/env.ts';
import { buildApp, serveApp, type ServedApp } from './serve.ts';

exitOnUnhandledErrors('account');
hardenPrototype('account'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `name=value,…` into a map keyed by application (unknown names refused). */
function perApplication(name: string, value: string | undefined): Partial<Record<Application, string>> {
  const out: Partial<Record<Application, string>> = {};
  for (const pair of list(value)) {
    const at = pair.indexOf('=');
    const app = pair.slice(0, at) as Application;
    if (at <= 0 || !APPLICATIONS.includes(app)) throw new ConfigError(`${name}: unknown entry ${pair}`);
    out[app] = pair.slice(at + 1);
  }
  return out;
}

const env = process.env;
const url = z.url();
const urlMap = { ...defaultUrlMap(), ...perApplication('APP_URLS', env.APP_URLS) };
for (const value of Object.values(urlMap)) url.parse(value);
const ports = perApplication('ACCOUNT_PORTS', env.ACCOUNT_PORTS);
const apps = env.ACCOUNT_APPS ? list(env.ACCOUNT_APPS) : [...APPLICATIONS];
for (const app of apps)
  if (!APPLICATIONS.includes(app as Application)) throw new ConfigError(`ACCOUNT_APPS: unknown ${app}`);
const m365 = defaultM365Config();
const authModes = parseAllowedAuthModes(env.ALLOWED_AUTH_MODES ?? DEFAULT_ALLOWED_AUTH_MODES);
const appConfig = {
  identityUrl: url.parse(env.IDENTITY_PUBLIC_URL || 'http://localhost:4433'),
  oauth2Url: url.parse(env.OAUTH2_PUBLIC_URL || 'http://localhost:4444'),
  usersUrl: url.parse(env.USERS_PUBLIC_URL || 'http://localhost:4455'),
  agentUrl: url.parse(env.AGENT_URL || 'http://localhost:4466'),
  urlMap,
  offerUrl: url.parse(env.OFFER_URL || 'http://localhost:4540/'),
  // Tracing on (an OTLP endpoint set): the browser sends `traceparent` on its calls to the services.
  ...(tracingConfigured(env) ? { tracing: true } : {}),
};

// The Teams host page must be on MAGIC's own origin (teams-js trusts no other http origin), so the
// app server serves it when the stand-ins run in other processes (`npm run start:cluster`).
let teamsHost: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
if (env.DEV_TEAMS_HOST === 'true') {
  if (env.NODE_ENV === 'production') throw new ConfigError('DEV_TEAMS_HOST is a development stand-in');
  const { teamsHostHandler } = await import('@acme/dev/microsoft/teams-host');
  teamsHost = teamsHostHandler({
    entraUrl: url.parse(env.ENTRA_URL || m365.entraUrl),
    clientId: env.M365_CLIENT_ID || m365.clientId,
    defaultUser: 'megan@contoso.test',
  });
}

const distDir = env.ACCOUNT_DIST_DIR || (await buildApp());
const served: ServedApp[] = [];
for (const application of apps as Application[]) {
  served.push(
    await serveApp({
      port: Number(ports[application] ?? new URL(urlMap[application]).port),
      host: env.ACCOUNT_HOST || '127.0.0.1',
      application,
      distDir,
      config: usesM365(application, authModes)
        ? {
            ...appConfig,
            allowedAuthModes: authModes[application],
            m365: {
              ...m365,
              clientId: env.M365_CLIENT_ID || m365.clientId,
              entraUrl: env.ENTRA_URL || m365.entraUrl,
              subscriptionUrl: env.M365_SUBSCRIPTION_URL || m365.subscriptionUrl,
            },
          }
        : appConfig,
      ...(application === 'magic' && teamsHost ? { devHandler: teamsHost } : {}),
    }),
  );
}
process.stderr.write(
  `${JSON.stringify({ level: 'info', name: 'account', msg: 'listening', apps, urls: served.map((s) => s.url) })}\n`,
);

drainOnSignals('account', async () => {
  await Promise.all(served.map((s) => s.close()));
});
