// The account app server on its own process: `npm start -w @acme/account`. Serves the one build
// for each application on its own port, with each application's runtime configuration. Its
// settings (config.ts, docs/configuration.md) are read once, here, at start.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { usesM365 } from '../src/shared/config/applications.ts';
import { defaultM365Config } from '../src/shared/config/env.ts';
import { loadConfig } from './config.ts';
import { buildApp, serveApp, type ServedApp } from './serve.ts';
import { createAccountTelemetry } from './telemetry.ts';

exitOnUnhandledErrors('account');
hardenPrototype('account'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

const config = loadConfig();
const appConfig = {
  identityUrl: config.identityUrl,
  oauth2Url: config.oauth2Url,
  usersUrl: config.usersUrl,
  agentUrl: config.agentUrl,
  urlMap: config.urlMap,
  offerUrl: config.offerUrl,
  // Tracing on (an OTLP endpoint set): the browser sends `traceparent` on its calls to the services.
  ...(config.tracing ? { tracing: true } : {}),
};

// The Teams host page must be on MAGIC's own origin (teams-js trusts no other http origin), so the
// app server serves it when the stand-ins run in other processes (`npm run start:cluster`).
let teamsHost: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
if (config.devTeamsHost) {
  const { teamsHostHandler } = await import('@acme/dev/microsoft/teams-host');
  teamsHost = teamsHostHandler({
    entraUrl: config.m365.entraUrl,
    clientId: config.m365.clientId,
    defaultUser: 'megan@contoso.test',
  });
}

const telemetry = createAccountTelemetry({ logLevel: config.logLevel });
const distDir = config.distDir ?? (await buildApp());
const served: ServedApp[] = [];
for (const application of config.apps) {
  served.push(
    await serveApp({
      port: config.ports[application] ?? Number(new URL(config.urlMap[application]).port),
      host: config.host,
      application,
      distDir,
      config: usesM365(application, config.authModes)
        ? {
            ...appConfig,
            allowedAuthModes: config.authModes[application],
            m365: { ...defaultM365Config(), ...config.m365 },
          }
        : appConfig,
      ...(application === 'magic' && teamsHost ? { devHandler: teamsHost } : {}),
      telemetry,
    }),
  );
}
// The account app server has no database: ready while it serves, 503 once it drains.
const managementServer = await startManagementServer({
  ...config.management,
  metrics: telemetry.metrics,
  db: undefined,
});
process.stderr.write(
  `${JSON.stringify({ level: 'info', name: 'account', msg: 'listening', apps: config.apps, urls: served.map((s) => s.url), management: managementServer.url })}\n`,
);

drainOnSignals('account', () =>
  closeWithManagement(managementServer, async () => {
    await Promise.all(served.map((s) => s.close()));
    telemetry.metrics.close();
  }),
);
