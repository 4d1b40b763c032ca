import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD } from '@acme/users';
import { Browser, csrfOf, traits } from '../../../services/identity/test/harness.ts';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { DISABLE_PROTO_FLAG, STARTED_WITHOUT_FLAG } from '@acme/service-kit/prototype';
import { commandLine } from './image-env.ts';
import { freePorts } from './ports.ts';

/**
 * The identity service's own entry point (`npm start -w @acme/identity`) as a child process
 * configured only from its environment, on its own in-memory PGlite: a password login works
 * against it. (The three-process variant on one PostgreSQL database is entry-points.pg.int.test.ts.)
 */
describe('the identity entry point as its own process', () => {
  let cluster: RunningCluster;

  beforeAll(async () => {
    cluster = await startProcessCluster({
      parts: ['identity'],
      ports: await freePorts(),
      logLevel: 'warn',
      // No SMTP server here: mail stays queued in the database.
      extraEnv: { MAIL_WORKER: 'false' },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it('runs it without Object.prototype.__proto__ (--disable-proto=delete in effect, not removed late)', () => {
    const [identity] = cluster.processes;
    expect(commandLine(identity!.child.pid!)).toContain(DISABLE_PROTO_FLAG);
    // A process started without the flag says so at start-up (hardenPrototype).
    expect(identity!.output()).not.toContain(STARTED_WITHOUT_FLAG);
  });

  it('runs each part in its own process', () => {
    const pids = new Set(cluster.processes.map((p) => p.child.pid));
    expect(pids.size).toBe(1);
    expect(pids.has(process.pid)).toBe(false);
  });

  it('signs in with a password over HTTP', async () => {
    const email = 'entry-point@example.com';
    const created = await fetch(`${cluster.urls.identityAdmin}/admin/identities`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_id: 'default',
        traits: traits(email),
        credentials: { password: { config: { password: DEMO_PASSWORD } } },
        verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
      }),
    });
    expect(created.status).toBe(201);
    const b = new Browser(cluster.urls.identityPublic);
    const flow = await b.get('/self-service/login/browser', { accept: 'json' });
    expect(flow.status).toBe(200);
    const submitted = await b.post(`/self-service/login?flow=${flow.body.id}`, {
      json: {
        method: 'password',
        identifier: email,
        password: DEMO_PASSWORD,
        csrf_token: csrfOf(flow.body),
      },
      accept: 'json',
    });
    expect(submitted.status, submitted.text).toBe(200);
    const whoami = await b.get('/sessions/whoami', { accept: 'json' });
    expect(whoami.status).toBe(200);
    expect(whoami.body.identity.traits.email).toBe(email);
  });
});
