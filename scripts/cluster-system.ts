// The system as it runs when scaled out, for `npm run start:cluster` and the journeys' cluster target:
// a throwaway PostgreSQL cluster, several processes of every service (identity, authorization
// server, user service, agent service, account app server) with nginx in front of each of their
// listeners on the usual ports (plus an offset; packages/cluster/src/nginx.ts), the stand-ins once (their state is in
// memory), and the demo data.
import { randomBytes } from 'node:crypto';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { startCluster as startPostgres } from '@acme/cluster/postgres';
import {
  offsetPorts,
  systemShape,
  systemUrls,
  type Listener,
  type Ports,
  type SystemUrls,
} from '@acme/system-shape';
import { buildApp } from '@acme/account/serve';
import { newOrgIdpClientSecret, seedDemoSystem } from './demo.ts';

export interface ScaledSystemOptions {
  /** Added to every usual port (the journeys use another range than `npm run start:cluster`). */
  portOffset?: number;
  /** Every browser-facing port instead (a test's free ports); `portOffset` is then unused. */
  ports?: Ports;
  /** Processes per service (the stand-ins run once). Default 2. */
  instances?: number;
  logLevel?: string;
  /** Pass the processes' output through (prefixed with their names). */
  inheritOutput?: boolean;
  /** Extra environment for every process, e.g. higher rate limits for tests. */
  extraEnv?: Record<string, string>;
  /**
   * One key for every admin API (at least 32 characters). Without one a fresh random key is made:
   * the scaled-out system always runs as a deployment does, with every admin API keyed.
   */
  adminKey?: string;
}

export interface ScaledSystem {
  /** The browser-facing URLs, as the one-process system names them. */
  urls: SystemUrls;
  /** The browser-facing URL of every listener (nginx's when a part has several instances). */
  listeners: Record<Listener, string>;
  cluster: RunningCluster;
  databaseUrl: string;
  /** The key every admin API requires (the one given, or the one made for this run). */
  adminKey: string;
  /** Stops the proxies and processes, then PostgreSQL (its files are removed). */
  close(): Promise<void>;
}

/**
 * Starts the scaled-out system from the compiled output (run `npm run build` first, as
 * `npm run start:cluster` and the journeys do).
 */
export async function startScaledSystem(options: ScaledSystemOptions = {}): Promise<ScaledSystem> {
  const offset = options.portOffset ?? 0;
  const ports = options.ports ?? offsetPorts(offset);
  const orgIdpClientSecret = newOrgIdpClientSecret();
  const adminKey = options.adminKey ?? randomBytes(32).toString('base64url');
  // The build is reused when no source changed since the last one.
  const distDir = await buildApp();
  const postgres = await startPostgres();
  let cluster: RunningCluster | undefined;
  const close = async () => {
    try {
      await cluster?.close();
    } finally {
      postgres.stop();
    }
  };
  try {
    cluster = await startProcessCluster({
      databaseUrl: postgres.url,
      parts: ['standIns', 'identity', 'oauth2', 'users', 'agent', 'account'],
      runtime: 'compiled',
      instances: options.instances ?? 2,
      ports,
      accountDistDir: distDir,
      orgIdpClientSecret,
      logLevel: options.logLevel ?? 'warn',
      inheritOutput: options.inheritOutput ?? false,
      ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
      adminKey,
    });
    const listeners = cluster.urls;
    // Once, through nginx in front of the user service.
    await seedDemoSystem(
      listeners.usersAdmin,
      adminKey,
      { issuer: listeners.orgIdp, clientSecret: orgIdpClientSecret },
      listeners.samlIdp,
    );
    return {
      urls: systemUrls(systemShape({ ports })),
      listeners,
      cluster,
      databaseUrl: postgres.url,
      adminKey,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
