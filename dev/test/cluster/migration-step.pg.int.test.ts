import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, sql } from '@acme/db';
import { seedDemo } from '@acme/users';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { DATABASE_SERVICES, NO_MIGRATION_AT_START, runEntry, type EntryRun } from './entry.ts';
import { freePorts } from './ports.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/**
 * Migrations as their own step (PostgreSQL only, `*.pg.int.test.ts`), as a deployment runs them:
 * the schema belongs to an owner role that runs `<service> migrate` before the rollout, and the
 * services run as a role that may only read and write rows, with `<PREFIX>_MIGRATE_AT_START=false`.
 */
const adminServer = process.env.TEST_DATABASE_URL!;
const SERVICES = Object.keys(DATABASE_SERVICES) as (keyof typeof DATABASE_SERVICES)[];

async function sqlAs(url: string, statements: string[]): Promise<void> {
  const db = await createDb({ url, preparedPerConnection: 0 });
  try {
    for (const statement of statements) await sql.raw(statement).execute(db.kysely);
  } finally {
    await db.close();
  }
}

function urlFor(role: string, database: string): string {
  const url = new URL(adminServer);
  url.username = role;
  url.pathname = `/${database}`;
  return url.toString();
}

/** The `pending  namespace/name` lines of `migrate status`. */
const pendingIn = (run: EntryRun) => [...run.stdout.matchAll(/^ {2}pending {2}(\S+)$/gm)].map((m) => m[1]!);

/**
 * A new database owned by a new owner role, and a role for the services that may use the schema
 * and, through default privileges, read and write the rows of every table the owner creates, now
 * or in a later migration; nothing else. What docs/deploy.md asks of a deployment.
 */
async function databaseWithOwnerAndServiceRoles(): Promise<{ ownerUrl: string; appUrl: string }> {
  const suffix = randomBytes(4).toString('hex');
  const owner = `schema_owner_${suffix}`;
  const app = `app_rw_${suffix}`;
  const database = `migration_step_${suffix}`;
  await sqlAs(adminServer, [
    `create role ${owner} login`,
    `create role ${app} login`,
    `create database ${database} owner ${owner}`,
  ]);
  await sqlAs(urlFor('postgres', database), [
    `alter schema public owner to ${owner}`,
    'revoke all on schema public from public',
    `grant usage on schema public to ${app}`,
  ]);
  const ownerUrl = urlFor(owner, database);
  await sqlAs(ownerUrl, [
    `alter default privileges in schema public grant select, insert, update, delete on tables to ${app}`,
    `alter default privileges in schema public grant usage, select on sequences to ${app}`,
  ]);
  return { ownerUrl, appUrl: urlFor(app, database) };
}

describe('migrations as their own step, the services on a role without DDL rights', () => {
  let ownerUrl: string;
  let appUrl: string;
  const pendingAtFirst = new Map<string, string[]>();
  let cluster: RunningCluster | undefined;

  beforeAll(async () => {
    ({ ownerUrl, appUrl } = await databaseWithOwnerAndServiceRoles());
  }, 60_000);
  afterAll(async () => {
    await cluster?.close();
  }, 60_000);

  it("the services' role cannot change the schema (what the rest of this file relies on)", async () => {
    await expect(sqlAs(appUrl, ['create table not_allowed (id int)'])).rejects.toThrow(/permission denied/);
  });

  it('a service with migration at start off refuses to start while migrations are pending, naming them, without a stack trace', async () => {
    const run = await runEntry('identity', [], {
      DATABASE_URL: appUrl,
      IDENTITY_MIGRATE_AT_START: 'false',
      IDENTITY_PUBLIC_PORT: '0',
      IDENTITY_ADMIN_PORT: '0',
      IDENTITY_MANAGEMENT_PORT: '0',
    });
    expect(run.status).toBe(1);
    const line = JSON.parse(run.stderr.trim().split('\n').at(-1)!) as { level: string; msg: string };
    expect(line.level).toBe('fatal');
    expect(line.msg).toContain('IDENTITY_MIGRATE_AT_START is false');
    expect(line.msg).toContain('identity/001_identities');
    expect(line.msg).toContain('mail/001_mail_outbox');
    expect(line.msg).toContain('Run `identity migrate`');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr).not.toContain('"stack"');
  }, 60_000);

  it('`migrate status` lists every pending migration and exits 1, also for the role without DDL rights', async () => {
    const runs = await Promise.all(
      SERVICES.map((s) => runEntry(s, ['migrate', 'status'], { DATABASE_URL: appUrl })),
    );
    for (const [i, run] of runs.entries()) {
      const service = SERVICES[i]!;
      expect(run.status, run.stderr).toBe(1);
      expect(run.stdout).toMatch(new RegExp(`^${service}: 0 applied, \\d+ pending$`, 'm'));
      const pending = pendingIn(run);
      expect(pending.length).toBeGreaterThan(0);
      expect(pending.every((name) => name.startsWith(`${service}/`) || name.startsWith('mail/'))).toBe(true);
      pendingAtFirst.set(service, pending);
    }
  }, 120_000);

  it('two migration runs of every service at once, as the owner: each exits 0 and every migration is applied once', async () => {
    const runs = await Promise.all(
      SERVICES.flatMap((s) => [s, s]).map((s) => runEntry(s, ['migrate'], { DATABASE_URL: ownerUrl })),
    );
    for (const run of runs) expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    const db = await createDb({ url: ownerUrl });
    try {
      const { rows } = await sql<{ id: string; n: number }>`
        select namespace || '/' || name as id, count(*)::int as n from schema_migrations group by 1 order by 1
      `.execute(db.kysely);
      const expected = [...new Set([...pendingAtFirst.values()].flat())].sort();
      expect(rows.map((r) => r.id)).toEqual(expected);
      expect(rows.every((r) => r.n === 1)).toBe(true);
    } finally {
      await db.close();
    }
  }, 180_000);

  it('`migrate status` then exits 0 with everything applied', async () => {
    const runs = await Promise.all(
      SERVICES.map((s) => runEntry(s, ['migrate', 'status'], { DATABASE_URL: appUrl })),
    );
    for (const [i, run] of runs.entries()) {
      expect(run.status, run.stdout).toBe(0);
      expect(run.stdout).toContain(
        `${SERVICES[i]}: ${pendingAtFirst.get(SERVICES[i]!)!.length} applied, 0 pending`,
      );
      expect(pendingIn(run)).toEqual([]);
    }
  }, 120_000);

  it('every service runs on the role without DDL rights: a user signs in with a password and gets tokens', async () => {
    cluster = await startProcessCluster({
      databaseUrl: appUrl,
      parts: ['identity', 'oauth2', 'users', 'agent'],
      ports: await freePorts(),
      logLevel: 'warn',
      extraEnv: { ...NO_MIGRATION_AT_START, MAIL_WORKER: 'false' },
    });
    const { urls } = cluster;
    await seedDemo(urls.usersAdmin);
    const { jar, redirect, verifier } = await passwordAccepted(urls);
    const callback = await jar.navigateToApp(redirect);
    const token = await exchangeCode(urls, callback.searchParams.get('code')!, verifier);
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string; refresh_token: string };
    // The refresh rotates the token (writes), and the agent counts a request (writes).
    const refreshed = await fetch(`${urls.oauth2Public}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: 'platform',
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
    const agent = await fetch(`${urls.agent}/misc/unregistered-user`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(agent.status).toBe(400);
  }, 240_000);
});
