import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster as startPostgres, type Cluster } from '@acme/cluster/postgres';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';

/**
 * PostgreSQL restarted under load (PostgreSQL only, `*.pg.int.test.ts`; its own server, since it
 * is stopped and started): identity, the authorization server and the user service, two instances
 * each behind nginx, keep
 * being asked to read and write. While the server is away they answer 503 with Retry-After (never
 * 500, never a hang, never a crash); once it is back they answer again without being restarted;
 * and every write they confirmed before, during or after is there.
 */
interface Outcome {
  kind: 'write' | 'read' | 'login-config' | 'clients';
  status: number;
  retryAfter: string | null;
  /** The identity a confirmed write created. */
  id?: string;
}

describe('PostgreSQL restarted while the services are under load', () => {
  let postgres: Cluster;
  let cluster: RunningCluster;

  beforeAll(async () => {
    postgres = await startPostgres();
    cluster = await startProcessCluster({
      databaseUrl: postgres.url,
      parts: ['identity', 'oauth2', 'users'],
      instances: 2,
      ports: await freePorts(),
      logLevel: 'error',
      extraEnv: { MAIL_WORKER: 'false', LOGIN_CONFIG_RATE_LIMIT: '100000' },
    });
  }, 180_000);
  afterAll(async () => {
    await cluster?.close();
    postgres?.stop();
  }, 60_000);

  it('answers 503 with Retry-After while the server is away, recovers without a restart and loses no confirmed write', async () => {
    const { urls } = cluster;
    const pids = cluster.processes.map((p) => p.child.pid);
    let n = 0;
    const one = async (kind: Outcome['kind']): Promise<Outcome> => {
      const i = n++;
      const signal = AbortSignal.timeout(15_000);
      const res =
        kind === 'write'
          ? await fetch(`${urls.identityAdmin}/admin/identities`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ schema_id: 'default', traits: { email: `load${i}@example.com` } }),
              signal,
            })
          : kind === 'read'
            ? await fetch(`${urls.identityAdmin}/admin/identities?page_size=1`, { signal })
            : kind === 'clients'
              ? await fetch(`${urls.oauth2Admin}/admin/clients`, { signal })
              : await fetch(`${urls.usersPublic}/login/config?emailAddress=load${i}%40example.com`, {
                  signal,
                });
      const body = (await res.json().catch(() => ({}))) as { id?: string };
      return {
        kind,
        status: res.status,
        retryAfter: res.headers.get('retry-after'),
        ...(kind === 'write' && res.status === 201 && body.id ? { id: body.id } : {}),
      };
    };
    const outcomes: { phase: 'before' | 'away' | 'after'; outcome: Outcome }[] = [];
    let phase: 'before' | 'away' | 'after' = 'before';
    let running = true;
    const kinds: Outcome['kind'][] = ['write', 'read', 'login-config', 'clients'];
    // Four clients, one of each kind, asking again as soon as they have an answer.
    const load = kinds.map(async (kind) => {
      while (running) {
        const at = phase;
        outcomes.push({ phase: at, outcome: await one(kind) });
        if (at === 'away') await new Promise((r) => setTimeout(r, 50));
      }
    });
    await new Promise((r) => setTimeout(r, 1_500));
    await postgres.stopServer();
    phase = 'away';
    await new Promise((r) => setTimeout(r, 3_000));
    await postgres.startServer();
    phase = 'after';
    // Back within a few seconds: every kind succeeds again.
    const deadline = Date.now() + 30_000;
    const ok = (o: Outcome) => o.status === 200 || o.status === 201;
    while (Date.now() < deadline) {
      const recent = outcomes.filter((o) => o.phase === 'after').slice(-12);
      if (kinds.every((k) => recent.some((o) => o.outcome.kind === k && ok(o.outcome)))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    running = false;
    await Promise.all(load);

    const away = outcomes.filter((o) => o.phase === 'away').map((o) => o.outcome);
    // While away: every kind was refused with 503 and Retry-After, and nothing else went wrong.
    for (const kind of kinds) {
      expect(away.some((o) => o.kind === kind && o.status === 503)).toBe(true);
    }
    // What the processes said, for a failure's message (a crash shows here).
    const said = () =>
      cluster.processes
        .map((p) => `${p.name} exit=${p.child.exitCode}: ${p.output().slice(-1500)}`)
        .join('\n');
    for (const o of outcomes.map((x) => x.outcome)) {
      expect([200, 201, 503], `${JSON.stringify(o)}\n${said()}`).toContain(o.status);
      if (o.status === 503) expect(o.retryAfter, JSON.stringify(o)).toMatch(/^\d+$/);
    }
    // Recovered, by the same processes.
    const after = outcomes.filter((o) => o.phase === 'after').map((o) => o.outcome);
    for (const kind of kinds) expect(after.some((o) => o.kind === kind && ok(o))).toBe(true);
    expect(cluster.processes.map((p) => p.child.pid)).toEqual(pids);
    expect(
      cluster.processes.every((p) => p.child.exitCode === null),
      said(),
    ).toBe(true);
    // Every confirmed write is there.
    const confirmed = outcomes.flatMap((o) => (o.outcome.id ? [o.outcome.id] : []));
    expect(confirmed.length).toBeGreaterThan(2);
    for (const id of confirmed) {
      const res = await fetch(`${urls.identityAdmin}/admin/identities/${id}`);
      expect(res.status, id).toBe(200);
      await res.body?.cancel();
    }
  }, 120_000);
});
