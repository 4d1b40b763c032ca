import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@acme/db';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { buildServices, commandLine, IMAGE_ENV, samlKeysEnv } from './image-env.ts';
import { freePorts } from './ports.ts';

/**
 * PostgreSQL only (`*.pg.int.test.ts`): the four services started by the container's entry point
 * (docker/entrypoint.sh) from the compiled output, with the image's environment and the secrets
 * production requires, on one database; each answers its health probes and a first request, and
 * drains on SIGTERM.
 */
const adminServer = process.env.TEST_DATABASE_URL;

describe('docker/entrypoint.sh: the services on PostgreSQL', () => {
  let cluster: RunningCluster;
  const adminKey = randomBytes(32).toString('base64url');

  beforeAll(async () => {
    buildServices();
    cluster = await startProcessCluster({
      databaseUrl: await createDatabase(adminServer!),
      parts: ['identity', 'oauth2', 'users', 'agent'],
      runtime: 'image',
      ports: await freePorts(),
      adminKey,
      logLevel: 'warn',
      extraEnv: {
        ...IMAGE_ENV,
        IDENTITY_CODE_SECRET: randomBytes(32).toString('base64url'),
        SSO_SECRET_KEY: randomBytes(32).toString('base64url'),
        OAUTH2_KEYS_SECRET: randomBytes(32).toString('base64url'),
        ...samlKeysEnv(),
        // No SMTP server here: mail stays queued in the database.
        MAIL_WORKER: 'false',
      },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('runs every service from its compiled JavaScript, without a TypeScript loader', () => {
    for (const proc of cluster.processes) {
      const args = commandLine(proc.child.pid!);
      expect(args).toContain('--conditions=compiled');
      expect(args.at(-1)).toBe(join('services', proc.name, 'dist', 'main.js'));
      expect(args.join(' ')).not.toMatch(/tsx|\.ts\b/);
    }
  });

  it('answers the health probes and a first request on every service', async () => {
    const { urls } = cluster;
    for (const admin of [urls.identityAdmin, urls.oauth2Admin, urls.usersAdmin, urls.agentAdmin]) {
      expect((await fetch(`${admin}/health/ready`)).status).toBe(200);
    }
    const whoami = await fetch(`${urls.identityPublic}/sessions/whoami`);
    expect(whoami.status).toBe(401);
    expect(((await whoami.json()) as { error: { code: number } }).error.code).toBe(401);
    const discovery = await fetch(`${urls.oauth2Public}/.well-known/openid-configuration`);
    expect(((await discovery.json()) as { issuer: string }).issuer).toBe(urls.oauth2Public);
    // Keyed admin APIs: without the key, 401.
    expect((await fetch(`${urls.identityAdmin}/admin/identities`)).status).toBe(401);
    const listed = await fetch(`${urls.identityAdmin}/admin/identities`, {
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(listed.status).toBe(200);
  });

  it('drains and exits 0 on SIGTERM', async () => {
    const codes = await Promise.all(cluster.processes.map((p) => p.stop()));
    expect(codes).toEqual([0, 0, 0, 0]);
  });
});
