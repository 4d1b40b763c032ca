import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, createDb, sql, type Database } from '@acme/db';
import { seedDemo } from '@acme/users';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { DATABASE_SERVICES, runEntry } from './entry.ts';
import { freePorts } from './ports.ts';
import { buildPreviousRelease, previousReleaseRevision } from './previous-release.ts';
import { exchangeCode, passwordAccepted } from './sign-in.ts';

/**
 * A rolling upgrade (PostgreSQL only, `*.pg.int.test.ts`): this release's migration step has run,
 * and the previous release's identity, authorization server and user service (the commit before
 * the newest change to the migrations, built from its own tree: previous-release.ts) run beside
 * this release's, one instance each behind nginx, on that schema. People keep signing in and
 * getting and refreshing tokens whichever release answers each step: the migrations only expand
 * the schema (docs/deploy.md, "Rolling upgrades").
 */
const adminServer = process.env.TEST_DATABASE_URL!;
const PARTS = ['identity', 'oauth2', 'users'] as const;

/**
 * The public requests an instance has answered (its http_request_duration_seconds counts), from its
 * `/metrics`: the management listener's where the release has one, else (a release from before the
 * management port) the admin listener's.
 */
async function answered(bases: { management: string; admin: string }): Promise<number> {
  const scrape = async (base: string) => {
    const res = await fetch(`${base}/metrics`).catch(() => undefined);
    return res?.status === 200 ? res.text() : undefined;
  };
  const text = (await scrape(bases.management)) ?? (await scrape(bases.admin));
  if (text === undefined) throw new Error(`no /metrics at ${bases.management} or ${bases.admin}`);
  return [...text.matchAll(/^http_request_duration_seconds_count\{[^}]*\} (\d+)$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
}

describe('a rolling upgrade: the previous release and this one side by side on the new schema', () => {
  let cluster: RunningCluster;
  let db: Database;
  let migrated: string[];
  const previous = previousReleaseRevision();

  beforeAll(async () => {
    const oldRoot = buildPreviousRelease(previous.sha);
    const databaseUrl = await createDatabase(adminServer);
    db = await createDb({ url: databaseUrl });
    const runs = await Promise.all(
      Object.keys(DATABASE_SERVICES).map((s) =>
        runEntry(s as keyof typeof DATABASE_SERVICES, ['migrate'], { DATABASE_URL: databaseUrl }),
      ),
    );
    for (const run of runs) expect(run.status, run.stderr).toBe(0);
    migrated = await names(db);
    cluster = await startProcessCluster({
      databaseUrl,
      parts: [...PARTS],
      instances: 2,
      ports: await freePorts(),
      logLevel: 'warn',
      extraEnv: { MAIL_WORKER: 'false' },
      // The first instance of each part is the previous release's, compiled in its own tree.
      instanceFrom: (_part, index) => (index === 0 ? { root: oldRoot, runtime: 'compiled' } : undefined),
    });
  }, 300_000);
  afterAll(async () => {
    await cluster?.close();
    await db?.close();
  }, 60_000);

  const names = async (on: Database) =>
    (
      await sql<{
        id: string;
      }>`select namespace || '/' || name as id from schema_migrations order by 1`.execute(on.kysely)
    ).rows.map((r) => r.id);

  it(`the previous release (${previous.why}) starts on the migrated schema and changes nothing in it`, async () => {
    expect(previous.sha).toMatch(/^[0-9a-f]{40}$/);
    // identity-1, oauth2-1 and users-1 run the previous release's compiled entry points.
    for (const part of PARTS) {
      const args = (name: string) =>
        cluster.processes.find((p) => p.name === name)!.child.spawnargs.join(' ');
      expect(args(`${part}-1`)).toContain(`previous-release/${previous.sha}/`);
      expect(args(`${part}-2`)).not.toContain('previous-release');
    }
    expect(await names(db)).toEqual(migrated);
  });

  it('signs people in, issues and refreshes tokens, with each release answering part of every sign-in', async () => {
    const { urls } = cluster;
    const at = (name: string, part: 'identity' | 'oauth2') => {
      const ports = cluster.instancePorts.get(name)!;
      return {
        management: `http://localhost:${ports[`${part}Management`]}`,
        admin: `http://localhost:${ports[`${part}Admin`]}`,
      };
    };
    const identityOld = at('identity-1', 'identity');
    const identityNew = at('identity-2', 'identity');
    const oauth2Old = at('oauth2-1', 'oauth2');
    const oauth2New = at('oauth2-2', 'oauth2');
    const before = {
      identityOld: await answered(identityOld),
      identityNew: await answered(identityNew),
      oauth2Old: await answered(oauth2Old),
      oauth2New: await answered(oauth2New),
    };
    await seedDemo(urls.usersAdmin);
    for (let round = 0; round < 3; round++) {
      const { jar, redirect, verifier } = await passwordAccepted(urls);
      const callback = await jar.navigateToApp(redirect);
      expect(callback.pathname).toBe('/account/callback');
      const token = await exchangeCode(urls, callback.searchParams.get('code')!, verifier);
      expect(token.status).toBe(200);
      const { refresh_token: refreshToken } = (await token.json()) as { refresh_token: string };
      const refreshed = await fetch(`${urls.oauth2Public}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: 'platform',
        }).toString(),
      });
      expect(refreshed.status).toBe(200);
    }
    expect(await answered(identityOld)).toBeGreaterThan(before.identityOld);
    expect(await answered(identityNew)).toBeGreaterThan(before.identityNew);
    expect(await answered(oauth2Old)).toBeGreaterThan(before.oauth2Old);
    expect(await answered(oauth2New)).toBeGreaterThan(before.oauth2New);
  }, 120_000);
});
