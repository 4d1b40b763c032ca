import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '@acme/db';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';

/**
 * PostgreSQL only (`*.pg.int.test.ts`): behind nginx every connection comes from
 * nginx, so the user and agent services' per-IP limits must key on the client's address
 * nginx forwards (X-Forwarded-For, trusted for exactly 1 hop), or every browser would share one
 * allowance; and never on an X-Forwarded-For the client wrote, or a header would reset them.
 * Distinct clients connect from distinct loopback addresses (127.0.0.2, 127.0.0.3).
 */
const adminServer = process.env.TEST_DATABASE_URL;
const LIMIT = 3;

describe('per-IP limits behind nginx', () => {
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

  /**
   * Statuses of `count` requests from the client at loopback address `from`, each claiming a new
   * address of its own in X-Forwarded-For (which nginx must not pass on).
   */
  function statuses(count: number, from: string, url: string, init: { method?: string; body?: string } = {}) {
    const target = url.replace('//localhost:', '//127.0.0.1:');
    const one = (i: number) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          target,
          {
            method: init.method ?? 'GET',
            localAddress: from,
            headers: {
              'x-forwarded-for': `198.51.100.${i + 1}`,
              ...(init.body ? { 'content-type': 'application/json' } : {}),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(init.body);
      });
    return (async () => {
      const out: number[] = [];
      for (let i = 0; i < count; i++) out.push(await one(i));
      return out;
    })();
  }

  it('counts the login configuration per client across both user-service instances; spoofed X-Forwarded-For does not reset it', async () => {
    const loginConfig = `${cluster.urls.usersPublic}/login/config?emailAddress=someone%40example.com`;
    // One client's allowance holds over both instances, whatever it claims; another client has its own.
    expect(await statuses(LIMIT + 1, '127.0.0.2', loginConfig)).toEqual([200, 200, 200, 429]);
    expect(await statuses(LIMIT, '127.0.0.3', loginConfig)).toEqual([200, 200, 200]);
  });

  it('counts the agent service per client across both instances; spoofed X-Forwarded-For does not reset it', async () => {
    const url = `${cluster.urls.agent}/misc/unregistered-user`;
    const post = { method: 'POST', body: '{}' };
    // The rate is counted before the body is checked: malformed requests (400) use it up too.
    expect(await statuses(LIMIT + 1, '127.0.0.2', url, post)).toEqual([400, 400, 400, 429]);
    expect(await statuses(LIMIT, '127.0.0.3', url, post)).toEqual([400, 400, 400]);
  });
});
