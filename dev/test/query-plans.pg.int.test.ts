// The hot queries' plans at size (issue 38): a database seeded with 20,000 people (so 20,000 rows
// and more in every hot table: identities, credentials, sessions, users, SCIM users, security
// events, grants and refresh tokens), then every hot code path is run once through a Kysely plugin
// that records the statements it sends, exactly as compiled, and each recorded statement is
// EXPLAINed with its parameters. A sequential scan over a table of more than 10,000 rows fails the
// test: at a million people it would read the whole table on every request. Runs in the PostgreSQL
// stage only: production at size runs on PostgreSQL, and seeding 20,000 people on PGlite took
// two minutes of the suite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompiledQuery,
  PostgresQueryCompiler,
  createTestDb,
  migrate,
  sql,
  typed,
  type Database,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
} from '@acme/db';
import { systemClock } from '@acme/db/clock';
import { migrations as identityMigrations } from '@acme/identity';
import { migrations as usersMigrations } from '@acme/users';
import { migrations as oauth2Migrations } from '@acme/oauth2';
import { findSessionByToken } from '../../services/identity/src/sessions/repo.ts';
import { findIdentityIdByIdentifier, getCredential } from '../../services/identity/src/identities/repo.ts';
import { cleanupExpired } from '../../services/identity/src/db/cleanup.ts';
import { createAdapterRegistry, deleteExpired } from '../../services/oauth2/src/adapter/postgres-adapter.ts';
import { listMembers } from '../../services/users/src/members/members.ts';
import { listEvents } from '../../services/users/src/events/events.ts';
import { listUsers } from '../../services/users/src/scim/users.ts';
import type { UsersContext } from '../../services/users/src/context.ts';
import type { UsersDb } from '../../services/users/src/db-types.ts';
import { emailOf, identityId, organisationId, seed } from '../../bench/scale-seed.ts';

const PEOPLE = 20_000;
const LARGE_TABLE = 10_000;

/** Records every statement a code path sends, compiled as the driver receives it. */
function recorder() {
  const compiler = new PostgresQueryCompiler();
  const queries: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      queries.push(compiler.compileQuery(args.node, args.queryId));
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      return args.result;
    },
  };
  return { plugin, queries };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

function seqScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScans)];
}

let db: Database;
let sizes: Map<string, number>;

beforeAll(async () => {
  db = await createTestDb();
  await migrate(db, 'identity', identityMigrations);
  await migrate(db, 'users', usersMigrations);
  await migrate(db, 'oauth2', oauth2Migrations);
  await seed(db, PEOPLE, { passwordConfig: { hashed_password: 'not a real hash' }, eventsPerPerson: 1 });
  const counts = await sql<{ relname: string; reltuples: number }>`
    select relname, reltuples from pg_class where relkind = 'r' and relnamespace = current_schema()::regnamespace`.execute(
    db.kysely,
  );
  sizes = new Map(counts.rows.map((r) => [r.relname, Number(r.reltuples)]));
}, 120_000);

afterAll(async () => {
  await db?.close();
});

/** Runs `path` with a recording handle; answers each statement it sent with the large tables it scans sequentially. */
async function scansOf(path: (kysely: Database['kysely']) => Promise<unknown>) {
  const { plugin, queries } = recorder();
  await path(db.kysely.withPlugin(plugin));
  expect(queries.length).toBeGreaterThan(0);
  const found: { sql: string; tables: string[] }[] = [];
  for (const query of queries) {
    const explained = await db.kysely.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
    );
    const plan = explained.rows[0]!['QUERY PLAN'];
    const doc = typeof plan === 'string' ? (JSON.parse(plan) as typeof plan) : plan;
    const tables = seqScans(doc[0].Plan).filter((t) => (sizes.get(t) ?? 0) > LARGE_TABLE);
    if (tables.length) found.push({ sql: query.sql, tables });
  }
  return found;
}

const largest = organisationId(0);
const scope = {
  organisationId: largest,
  tokenId: 'plan-test',
  baseUrl: 'http://plans.example/scim/v2',
  origin: { kind: 'directory', id: 'plan-test' },
} as unknown as Parameters<typeof listUsers>[1];
const usersCtx = () => ({ db: typed<UsersDb>(db) }) as UsersContext;

describe('hot queries never scan a large table sequentially', () => {
  it('seeds every hot table beyond 10,000 rows', () => {
    for (const table of [
      'identity_identities',
      'identity_sessions',
      'users',
      'security_events',
      'oauth2_models',
    ])
      expect(sizes.get(table), table).toBeGreaterThan(LARGE_TABLE);
  });

  it('whoami: the session by its token with the identity', async () => {
    expect(await scansOf((k) => findSessionByToken(k, 'ory_st_plan-test-token', new Date()))).toEqual([]);
  });

  it('password login: the identifier and the credential', async () => {
    expect(
      await scansOf(async (k) => {
        await findIdentityIdByIdentifier(k, 'password', emailOf(123));
        await getCredential(k, identityId(123), 'password');
      }),
    ).toEqual([]);
  });

  it('code exchange and refresh: the stored code, token and grant', async () => {
    expect(
      await scansOf(async (k) => {
        const adapters = createAdapterRegistry({
          db: { ...db, kysely: k },
          clock: systemClock,
          graceSeconds: 0,
        });
        await adapters.get('RefreshToken').find('RefreshToken-00000123-0');
        await adapters.get('Grant').find('Grant-00000123-0');
        await adapters.get('AuthorizationCode').find('no-such-code');
        await adapters.get('RefreshToken').revokeByGrantId('grant-00000123-0');
      }),
    ).toEqual([]);
  });

  it("the console's member list, search and event page in the largest organisation", async () => {
    expect(
      await scansOf(async (k) => {
        const users = k as never;
        await listMembers(users, largest, { page: 3, pageSize: 50 });
        await listMembers(users, largest, { q: 'kil', page: 1, pageSize: 50 });
        await listEvents(users, { organisationId: largest, limit: 51 });
      }),
    ).toEqual([]);
  });

  it('SCIM: userName eq, and deep pages (offset, then keyset)', async () => {
    expect(
      await scansOf(async (k) => {
        const ctx = { ...usersCtx(), db: k } as UsersContext;
        await listUsers(ctx, scope, [{ field: 'userName', value: emailOf(42) }] as never, {
          startIndex: 1,
          count: 100,
        });
        await listUsers(ctx, scope, [], { startIndex: 5_001, count: 100 });
        await listUsers(ctx, scope, [], { startIndex: 5_101, count: 100 });
      }),
    ).toEqual([]);
  });

  it('the cleanup of expired flows, sessions and grants', async () => {
    expect(
      await scansOf(async (k) => {
        await cleanupExpired(k as Parameters<typeof cleanupExpired>[0], new Date());
        await deleteExpired({ ...db, kysely: k }, systemClock);
      }),
    ).toEqual([]);
  });

  it('SCIM pages walked one after another (keyset after the first) match offset paging, everyone once', async () => {
    const ctx = usersCtx();
    const walked: string[] = [];
    for (let startIndex = 1; ; startIndex += 500) {
      const page = await listUsers(ctx, scope, [], { startIndex, count: 500 });
      walked.push(...page.Resources.map((r) => r.id));
      if (page.Resources.length < 500) break;
    }
    const byOffset = await typed<UsersDb>(db)
      .selectFrom('users')
      .select('id')
      .where('organisation_id', '=', largest)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(walked).toEqual(byOffset.map((r) => r.id));
  });
});
