import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '@acme/account/serve';
import { createDatabase } from '@acme/db';
import type { Part } from '@acme/cluster/processes';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { MANAGEMENT_LISTENER } from '@acme/system-shape';
import { freePort } from '@acme/test-kit/free-port';
import { DEMO_PASSWORD, seedDemo } from '@acme/users';
import { freePorts } from './ports.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/**
 * The cluster as `npm run start:cluster` runs it (two processes of every service behind nginx, on
 * PostgreSQL), scraped by a real Prometheus (`/usr/bin/prometheus`, Debian's package) at every
 * process's management port, as a deployment's Prometheus scrapes every pod by its IP: each target
 * is up, and a sign-in moves the sign-in counters. The management ports answer their three routes
 * with no key and 404 to everything else, so a probe never reaches an admin API.
 *
 * PostgreSQL only (`*.pg.int.test.ts`): several processes share one database.
 */
const adminServer = process.env.TEST_DATABASE_URL!;
const PROMETHEUS = '/usr/bin/prometheus';
const PARTS: Part[] = ['standIns', 'identity', 'oauth2', 'users', 'agent', 'account'];

interface Target {
  process: string;
  url: string;
}

let cluster: RunningCluster;
let prometheus: ChildProcess;
let prometheusUrl: string;
let workDir: string;
let targets: Target[];
let prometheusLog = '';
const adminKey = randomBytes(32).toString('base64url');

async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${prometheusLog.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** An instant query through Prometheus's HTTP API: each series' labels and value. */
async function query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]> {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as {
    status: string;
    data: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  expect(body.status, JSON.stringify(body)).toBe('success');
  return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
}

async function scalar(promql: string): Promise<number> {
  const [first] = await query(`${promql} or vector(0)`);
  return first?.value ?? 0;
}

beforeAll(async () => {
  const databaseUrl = await createDatabase(adminServer);
  cluster = await startProcessCluster({
    databaseUrl,
    parts: PARTS,
    instances: 2,
    ports: await freePorts(),
    runtime: 'compiled',
    accountDistDir: await buildApp(),
    adminKey,
    logLevel: 'warn',
  });
  await seedDemo(cluster.urls.usersAdmin, adminKey);
  targets = cluster.processes.flatMap((p) => {
    const listener = MANAGEMENT_LISTENER[p.name.replace(/-\d+$/, '') as Part];
    const port = listener && cluster.instancePorts.get(p.name)?.[listener];
    return port ? [{ process: p.name, url: `http://127.0.0.1:${port}` }] : [];
  });

  workDir = await mkdtemp(join(tmpdir(), 'acme-prometheus-'));
  const port = await freePort();
  prometheusUrl = `http://127.0.0.1:${port}`;
  // One static target per process, labelled with its name; scraped every second.
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    '  - job_name: acme',
    '    static_configs:',
    ...targets.flatMap((t) => [
      `      - targets: ['${new URL(t.url).host}']`,
      `        labels: { process: '${t.process}' }`,
    ]),
  ].join('\n');
  await writeFile(join(workDir, 'prometheus.yml'), `${config}\n`);
  prometheus = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(workDir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(workDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout!.on('data', (d: Buffer) => (prometheusLog += d.toString()));
  prometheus.stderr!.on('data', (d: Buffer) => (prometheusLog += d.toString()));
  await waitFor('Prometheus to be ready', async () =>
    (await fetch(`${prometheusUrl}/-/ready`)).ok ? true : undefined,
  );
}, 300_000);

afterAll(async () => {
  if (prometheus && prometheus.exitCode === null) {
    const exited = new Promise((r) => prometheus.once('exit', r));
    prometheus.kill('SIGTERM');
    await exited;
  }
  await cluster?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
}, 60_000);

describe('every management port of the cluster, scraped by Prometheus', () => {
  it('has one per process, none behind nginx, each answering its three routes with no key and 404 to the rest', async () => {
    // Two of each of the five parts with a management listener, each on its own port.
    expect(targets.map((t) => t.process).sort()).toEqual(
      ['account', 'agent', 'identity', 'oauth2', 'users'].flatMap((p) => [`${p}-1`, `${p}-2`]),
    );
    expect(new Set(targets.map((t) => t.url)).size).toBe(targets.length);
    for (const { process, url } of targets) {
      for (const path of ['/metrics', '/health/alive', '/health/ready'])
        expect((await fetch(`${url}${path}`)).status, `${process} ${path}`).toBe(200);
      for (const path of ['/', '/admin/identities', '/admin/organisations', '/account/login', '/health'])
        expect((await fetch(`${url}${path}`)).status, `${process} ${path}`).toBe(404);
      expect((await fetch(`${url}/metrics`, { method: 'POST' })).status).toBe(404);
    }
  });

  it('a probe of a management port never reaches the admin API, even carrying the admin key (50 in parallel)', async () => {
    const identity = targets.find((t) => t.process === 'identity-1')!.url;
    const auth = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
    const listed = async () => {
      const res = await fetch(`${cluster.urls.identityAdmin}/admin/identities?page_size=500`, {
        headers: auth,
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as unknown[]).length;
    };
    const before = await listed();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${identity}/admin/identities`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            schema_id: 'default',
            traits: { email: `probe-${i}@acme.test`, name: { first: 'P', last: `${i}` } },
          }),
        }).then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    for (const answer of answers) expect(answer).toEqual({ status: 404, body: 'Not Found\n' });
    expect(await listed()).toBe(before);
  });

  it('sees every target up, and the sign-in and token counters move after a sign-in', async () => {
    // Every target scraped successfully at least once.
    await waitFor('every target to be up', async () => {
      const up = await query('up{job="acme"}');
      return up.length === targets.length && up.every((s) => s.value === 1) ? up : undefined;
    });
    const up = await query('up{job="acme"}');
    expect(up.map((s) => s.metric.process).sort()).toEqual(targets.map((t) => t.process).sort());
    // Each target reports its own service's series and the default process metrics.
    const services = await query('count by (process, service) (process_cpu_seconds_total)');
    expect(services).toHaveLength(targets.length);
    expect(
      (await query('count by (process) (mail_outbox_depth)')).map((s) => s.metric.process).sort(),
    ).toEqual(['identity-1', 'identity-2', 'users-1', 'users-2']);

    const logins = 'sum(identity_login_total{method="password",outcome="success"})';
    const codes = 'sum(oauth2_tokens_issued_total{grant_type="authorization_code"})';
    const before = { logins: await scalar(logins), codes: await scalar(codes) };

    const { jar, redirect, verifier } = await passwordAccepted(cluster.urls);
    const callback = await jar.navigateToApp(redirect);
    expect(callback.pathname).toBe('/account/callback');
    const code = callback.searchParams.get('code')!;
    const token = await exchangeCode(cluster.urls, code, verifier);
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string; refresh_token: string };

    // Within a few scrape intervals, Prometheus has the new counts.
    await waitFor('the sign-in to be scraped', async () =>
      (await scalar(logins)) >= before.logins + 1 && (await scalar(codes)) >= before.codes + 1
        ? true
        : undefined,
    );
    expect(await scalar(logins)).toBe(before.logins + 1);
    expect(await scalar(codes)).toBe(before.codes + 1);

    // No secret of the sign-in is a label or a value on any management port.
    for (const { process, url } of targets) {
      const text = await (await fetch(`${url}/metrics`)).text();
      for (const secret of [
        DEMO_PASSWORD,
        'ada@acme.test',
        code,
        verifier,
        tokens.access_token,
        tokens.refresh_token,
        adminKey,
      ])
        expect(text.includes(secret), `${process} shows a secret`).toBe(false);
    }
  }, 120_000);
});
