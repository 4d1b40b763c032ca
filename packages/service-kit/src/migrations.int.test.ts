import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDb,
  PendingMigrationsError,
  prepareSchema,
  type Database,
  type MigrationSet,
} from '@acme/db';
import { toErrorResponse } from './errors.ts';
import {
  entryCommand,
  migrateAtStartSchema,
  refuseOnPendingMigrations,
  runMigrationCommand,
} from './migrations.ts';

const SETS: MigrationSet[] = [
  {
    namespace: 'kit',
    migrations: [
      { name: '001_a', sql: 'create table kit_a (id int primary key)' },
      { name: '002_b', sql: 'create table kit_b (id int primary key)' },
    ],
  },
];

class Exited extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      out: (t: string) => void out.push(t),
      err: (t: string) => void err.push(t),
      exit: (code: number): never => {
        throw new Exited(code);
      },
    },
  };
}

const open: Database[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});
async function db(): Promise<Database> {
  const d = await createTestDb();
  open.push(d);
  return d;
}

describe('the migration step of an entry point', () => {
  it('reads the command line: nothing serves, `migrate`, `migrate status`; anything else is a usage error (64)', () => {
    const t = io();
    expect(entryCommand('kit', [], t.io)).toBe('serve');
    expect(entryCommand('kit', ['migrate'], t.io)).toBe('migrate');
    expect(entryCommand('kit', ['migrate', 'status'], t.io)).toBe('migrate-status');
    expect(() => entryCommand('kit', ['migrate', 'down'], t.io)).toThrow(new Exited(64));
    expect(t.err.join('')).toContain('Usage: kit [migrate | migrate status]');
  });

  it('`migrate status` lists pending migrations and answers 1; after `migrate`, applied ones and 0', async () => {
    const d = await db();
    const before = io();
    expect(await runMigrationCommand('kit', 'migrate-status', d, SETS, before.io)).toBe(1);
    expect(before.out.join('')).toBe(
      'kit: 0 applied, 2 pending\n  pending  kit/001_a\n  pending  kit/002_b\n',
    );
    const migrated = io();
    expect(await runMigrationCommand('kit', 'migrate', d, SETS, migrated.io)).toBe(0);
    expect(migrated.out.join('')).toBe('kit: applied 2 migration(s)\n  kit/001_a\n  kit/002_b\n');
    const again = io();
    expect(await runMigrationCommand('kit', 'migrate', d, SETS, again.io)).toBe(0);
    expect(again.out.join('')).toBe('kit: no pending migrations\n');
    const after = io();
    expect(await runMigrationCommand('kit', 'migrate-status', d, SETS, after.io)).toBe(0);
    expect(after.out.join('')).toMatch(/^kit: 2 applied, 0 pending\n {2}applied {2}kit\/001_a {2}\d{4}-/);
  });

  it('with migration at start off, a service with pending migrations is refused, naming them; with it on, they are applied', async () => {
    const d = await db();
    const error = await prepareSchema(d, SETS, false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PendingMigrationsError);
    expect((error as PendingMigrationsError).pending).toEqual(['kit/001_a', 'kit/002_b']);
    const t = io();
    expect(() => refuseOnPendingMigrations('kit', 'KIT_MIGRATE_AT_START', t.io)(error)).toThrow(
      new Exited(1),
    );
    const line = JSON.parse(t.err.join('')) as Record<string, unknown>;
    expect(line).toEqual({
      level: 'fatal',
      name: 'kit',
      msg: 'KIT_MIGRATE_AT_START is false and 2 migration(s) are pending: kit/001_a, kit/002_b. Run `kit migrate` (the migration step) first.',
    });
    // Any other error is not this function's to explain.
    expect(() => refuseOnPendingMigrations('kit', 'KIT_MIGRATE_AT_START', t.io)(new Error('boom'))).toThrow(
      'boom',
    );
    await prepareSchema(d, SETS, true);
    await expect(prepareSchema(d, SETS, false)).resolves.toBeUndefined();
  });

  it('`<PREFIX>_MIGRATE_AT_START` is true unless set to false, and nothing else is accepted', () => {
    expect(migrateAtStartSchema.parse(undefined)).toBe(true);
    expect(migrateAtStartSchema.parse('false')).toBe(false);
    expect(migrateAtStartSchema.safeParse('no').success).toBe(false);
  });
});

describe('a database that cannot be reached', () => {
  it('is a 503 with Retry-After in the shared error format, not a 500', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const shutdown = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
    });
    for (const error of [refused, shutdown, new Error('Connection terminated unexpectedly')]) {
      expect(toErrorResponse(error)).toEqual({
        status: 503,
        body: {
          errorCode: 'SERVICE_UNAVAILABLE',
          message: 'The service is briefly unavailable. Please try again in a moment.',
        },
        headers: { 'retry-after': '2' },
      });
    }
    // A query's own error stays an internal one.
    expect(toErrorResponse(Object.assign(new Error('syntax error'), { code: '42601' })).status).toBe(500);
  });
});
