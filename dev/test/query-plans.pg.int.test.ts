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
import { loadConfig as identityConfig } from '../../services/identity/src/config.ts';
import {
  createAdapterRegistry,
  deleteExpired,
  deleteIdleGrants,
} from '../../services/oauth2/src/adapter/postgres-adapter.ts';
import { SEARCH_COUNT_BEYOND, listMembers } from '../../services/users/src/members/members.ts';
import { listEvents } from '../../services/users/src/events/events.ts';
import { deleteOrganisationEvents } from '../../services/users/src/console/event-retention.ts';
import { listUsers } from '../../services/users/src/scim/users.ts';
import type { UsersContext } from '../../services/users/src/context.ts';
import type { UsersDb } from '../../services/users/src/db-types.ts';
import { emailOf, identityId, organisationId, seed } from '../../bench/scale-seed.ts';

const PEOPLE = 20_000;
const LARGE_TABLE = 10_000;

/**
 * Records every statement a code path sends, compiled as the driver receives it, in the order they
 * ran (a subquery built on its own passes the plugin too, but only what runs has a result).
 */
function recorder() {
  const compiler = new PostgresQueryCompiler();
  const built = new Map<unknown, CompiledQuery>();
  const queries: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      built.set(args.queryId, compiler.compileQuery(args.node, args.queryId));
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      const query = built.get(args.queryId);
      if (query) queries.push(query);
      return args.result;
    },
  };
  return { plugin, queries };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function seqScans(node: PlanNode): string[] {
  const own = node['Node Type'] === 'Seq Scan' && node['Relation Name'] ? [node['Relation Name']] : [];
  return [...own, ...(node.Plans ?? []).flatMap(seqScans)];
}

/** Rows a plan read from `table` (returned or filtered out, over every loop). */
function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table
      ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
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

/** The rows each Sort of a plan sorted (over every loop). */
function sortedRows(node: PlanNode): number[] {
  const input = node.Plans?.[0];
  const own =
    node['Node Type'] === 'Sort' && input ? [(input['Actual Rows'] ?? 0) * (input['Actual Loops'] ?? 1)] : [];
  return [...own, ...(node.Plans ?? []).flatMap(sortedRows)];
}

const planOf = (rows: { 'QUERY PLAN': unknown }[]): PlanNode => {
  const plan = rows[0]!['QUERY PLAN'];
  const doc = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }];
  return doc[0].Plan;
};

const isSetting = (query: CompiledQuery) => /^set local /i.test(query.sql);

/**
 * Explains the recorded statements in order on one connection, in a transaction rolled back after,
 * applying the `set local` settings a code path gives its statements as it did.
 */
async function explainInOrder<T>(
  queries: readonly CompiledQuery[],
  explain: (c: Database['kysely'], query: CompiledQuery) => Promise<T>,
) {
  return db.kysely.connection().execute(async (c) => {
    await sql`begin`.execute(c);
    try {
      const answers: { sql: string; answer: T }[] = [];
      for (const query of queries) {
        if (isSetting(query)) await c.executeQuery(query);
        else answers.push({ sql: query.sql, answer: await explain(c, query) });
      }
      return answers;
    } finally {
      await sql`rollback`.execute(c);
    }
  });
}

/** Runs `path` with a recording handle; answers each statement it sent with the large tables it scans sequentially. */
async function scansOf(path: (kysely: Database['kysely']) => Promise<unknown>) {
  const { plugin, queries } = recorder();
  await path(db.kysely.withPlugin(plugin));
  expect(queries.length).toBeGreaterThan(0);
  const explained = await explainInOrder(queries, async (c, query) => {
    const result = await c.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
    );
    return seqScans(planOf(result.rows)).filter((t) => (sizes.get(t) ?? 0) > LARGE_TABLE);
  });
  return explained.filter((e) => e.answer.length).map((e) => ({ sql: e.sql, tables: e.answer }));
}

/**
 * Runs `path` with a recording handle and runs each statement it sent again as a prepared statement
 * planned generically (blind to its parameters, as the pool's prepared statements may be), with
 * EXPLAIN ANALYZE: per statement, the rows it read from `users` and the largest sort.
 */
async function genericReadsOf(path: (kysely: Database['kysely']) => Promise<unknown>) {
  const { plugin, queries } = recorder();
  await path(db.kysely.withPlugin(plugin));
  expect(queries.length).toBeGreaterThan(0);
  const literal = (v: unknown) =>
    typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`;
  return explainInOrder(queries, async (c, query) => {
    await c.executeQuery(CompiledQuery.raw(`prepare plan_probe as ${query.sql}`));
    await c.executeQuery(CompiledQuery.raw('set local plan_cache_mode = force_generic_plan'));
    const result = await c.executeQuery<{ 'QUERY PLAN': unknown }>(
      CompiledQuery.raw(
        `explain (analyze, format json) execute plan_probe(${query.parameters.map(literal).join(', ')})`,
      ),
    );
    await c.executeQuery(CompiledQuery.raw('deallocate plan_probe'));
    const plan = planOf(result.rows);
    return { usersRead: rowsRead(plan, 'users'), largestSort: Math.max(0, ...sortedRows(plan)) };
  });
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
        await listMembers(users, largest, { q: 'p', page: 3, pageSize: 50 });
        await listEvents(users, { organisationId: largest, limit: 51 });
      }),
    ).toEqual([]);
  });
});

describe('hot queries at size: what a search or a cleanup reads', () => {
  it('the member search reads the people it finds, not the organisation, also as a prepared statement', async () => {
    // The pool prepares statements: after a few runs PostgreSQL may plan one generically, blind to
    // the searched text, and a generic `LIKE $1` is no index range (it filtered all 6,000 members).
    const search = { q: 'kil', page: 1, pageSize: 50 };
    const found = await listMembers(typed<UsersDb>(db), largest, search);
    expect(found.total).toBeGreaterThan(0);
    expect(found.total).toBeLessThan(200);
    const read = await genericReadsOf((k) => listMembers(k as never, largest, search));
    expect(read.length).toBeGreaterThanOrEqual(2);
    for (const { sql: text, answer } of read)
      expect(answer.usersRead, text).toBeLessThan(4 * found.total + 100);
  });

  it('a broad search ("p": all 6,000 addresses) reads a bounded count and one page, never every match, also as a prepared statement', async () => {
    // Counting stops 1,000 past the page (at most that many rows of each of the three search
    // indexes); the page comes from the organisation in address order, so neither a count nor a
    // sort of all 6,000 matches.
    for (const search of [
      { q: 'p', page: 1, pageSize: 25 },
      { q: 'p', page: 9, pageSize: 25 },
    ]) {
      const bound = search.page * search.pageSize + SEARCH_COUNT_BEYOND;
      const found = await listMembers(typed<UsersDb>(db), largest, search);
      expect(found).toMatchObject({ total: bound, totalExact: false });
      expect(found.members).toHaveLength(search.pageSize);
      const read = await genericReadsOf((k) => listMembers(k as never, largest, search));
      expect(read).toHaveLength(2);
      const [count, page] = read.map((r) => r.answer);
      expect(count!.usersRead, read[0]!.sql).toBeLessThanOrEqual(3 * (bound + 1));
      expect(page!.usersRead, read[1]!.sql).toBeLessThanOrEqual(bound);
      for (const { sql: text, answer } of read)
        expect(answer.largestSort, text).toBeLessThanOrEqual(3 * (bound + 1));
    }
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
        await cleanupExpired(
          k as Parameters<typeof cleanupExpired>[0],
          new Date(),
          identityConfig({}).retention,
        );
        await deleteExpired({ ...db, kysely: k }, systemClock);
        await deleteIdleGrants({ ...db, kysely: k }, systemClock, { idleHours: 24, refreshGraceSeconds: 5 });
      }),
    ).toEqual([]);
  });

  it("an organisation's own event retention: its log and feed by organisation and time", async () => {
    await sql`update organisations set events_retention_days = 7 where id = ${largest}`.execute(db.kysely);
    expect(
      await scansOf((k) =>
        deleteOrganisationEvents(k as never, new Date(Date.now() + 30 * 86_400_000), 1000),
      ),
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
