// The account app server on its own process: `npm start -w @acme/account`. Serves the one build
// for each application on its own port, with each application's runtime configuration. Its
// settings (config.ts, docs/configuration.md) are read once, here, at start.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { closeWithManagement, startManagementServer } from '@acme/service-kit/management';
import { enterProcess } from '@acme/service-kit/entry-point';
import { drainOnSignals } from '@acme/service-kit/shutdown';
import { loadConfig } from './config.ts';
import { buildApp } from './serve.ts';
import { serveApplications } from './serve-applications.ts';
import { createAccountTelemetry } from './telemetry.ts';

enterProcess('account');

const config = loadConfig();
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
const served = await serveApplications(config, { distDir, telemetry, teamsHost });
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
