import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@acme/db';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';

/**
 * PostgreSQL only (`*.pg.int.test.ts`): behind the round-robin proxy every connection comes from
 * the proxy, so the user and agent services' per-IP limits must key on the client's address the
 * proxy forwards (X-Forwarded-For), or every browser would share one allowance.
 */
const adminServer = process.env.TEST_DATABASE_URL;
const LIMIT = 3;

describe('per-IP limits behind the round-robin proxy', () => {
  let cluster: RunningCluster;

  beforeAll(async () => {
    const databaseUrl = await createDatabase(adminServer!);
    cluster = await startProcessCluster({
      databaseUrl,
      parts: ['users', 'agent'],
      instances: 2,
      ports: await freePorts(),
      logLevel: 'warn',
      extraEnv: {
        MAIL_WORKER: 'false',
        LOGIN_CONFIG_RATE_LIMIT: String(LIMIT),
        AGENT_RATE_LIMIT: String(LIMIT),
      },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  /** Statuses of `count` requests from the client at `ip` (as a load balancer in front would tell). */
  async function statuses(
    count: number,
    ip: string,
    send: (headers: Record<string, string>) => Promise<Response>,
  ) {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const res = await send({ 'x-forwarded-for': ip });
      await res.body?.cancel();
      out.push(res.status);
    }
    return out;
  }

  it('counts the login configuration per client across both user-service instances', async () => {
    const loginConfig = (headers: Record<string, string>) =>
      fetch(`${cluster.urls.usersPublic}/login/config?emailAddress=someone%40example.com`, { headers });
    // One client's allowance holds over both instances; another client has its own.
    expect(await statuses(LIMIT + 1, '203.0.113.7', loginConfig)).toEqual([200, 200, 200, 429]);
    expect(await statuses(LIMIT, '203.0.113.8', loginConfig)).toEqual([200, 200, 200]);
  });

  it('counts the agent service per client across both instances', async () => {
    const request = (headers: Record<string, string>) =>
      fetch(`${cluster.urls.agent}/misc/unregistered-user`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: '{}',
      });
    // The rate is counted before the body is checked: malformed requests (400) use it up too.
    expect(await statuses(LIMIT + 1, '203.0.113.7', request)).toEqual([400, 400, 400, 429]);
    expect(await statuses(LIMIT, '203.0.113.8', request)).toEqual([400, 400, 400]);
  });
});
