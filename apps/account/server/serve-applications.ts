// Every application this app server serves, each with its runtime configuration, computed once from
// the server's settings (config.ts): for its own process (main.ts) and for `npm start`, which runs
// it in one process with everything else (scripts/system.ts) from the same settings.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Application, AccountConfig } from '../src/shared/config/env.ts';
import { usesM365 } from '../src/shared/config/applications.ts';
import { defaultM365Config } from '../src/shared/config/env.ts';
import type { AccountServerConfig } from './config.ts';
import { serveApp, type ServedApp } from './serve.ts';
import type { AccountTelemetry } from './telemetry.ts';

/**
 * One application's runtime configuration (over the development defaults): the services' URLs and
 * every application's origin; Microsoft 365's set-up where the application allows m365 (by default
 * MAGIC and local, or its configured list), pointed at the configured authority.
 */
export function applicationConfig(
  config: AccountServerConfig,
  application: Application,
): Partial<AccountConfig> {
  const common = {
    identityUrl: config.identityUrl,
    oauth2Url: config.oauth2Url,
    usersUrl: config.usersUrl,
    agentUrl: config.agentUrl,
    urlMap: config.urlMap,
    offerUrl: config.offerUrl,
    // Tracing on (an OTLP endpoint set): the browser sends `traceparent` on its calls to the services.
    ...(config.tracing ? { tracing: true } : {}),
  };
  if (!usesM365(application, config.authModes)) return common;
  return {
    ...common,
    allowedAuthModes: config.authModes[application],
    m365: { ...defaultM365Config(), ...config.m365 },
  };
}

export interface ServeApplicationsOptions {
  distDir: string;
  telemetry: AccountTelemetry;
  /** MAGIC's Teams host page stand-in (development): teams-js trusts only the app's own origin. */
  teamsHost?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
}

/** Serves every configured application on its own port (one build, one origin each). */
export async function serveApplications(
  config: AccountServerConfig,
  options: ServeApplicationsOptions,
): Promise<ServedApp[]> {
  const served: ServedApp[] = [];
  try {
    for (const application of config.apps) {
      served.push(
        await serveApp({
          port: config.ports[application] ?? Number(new URL(config.urlMap[application]).port),
          host: config.host,
          application,
          distDir: options.distDir,
          config: applicationConfig(config, application),
          ...(application === 'magic' && options.teamsHost ? { devHandler: options.teamsHost } : {}),
          telemetry: options.telemetry,
        }),
      );
    }
  } catch (error) {
    await Promise.all(served.map((s) => s.close()));
    throw error;
  }
  return served;
}
