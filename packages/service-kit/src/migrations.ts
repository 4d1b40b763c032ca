// Migrations as their own step: every service's entry point takes `migrate` (apply what is pending,
// exit) and `migrate status` (list applied and pending, exit 1 while any is pending), and the
// setting `<PREFIX>_MIGRATE_AT_START` (true by default) says whether the service applies pending
// migrations itself when it starts. With it off, a service that finds migrations pending refuses
// to start, naming them: the schema is the migration step's job, and the service's database role
// needs no right to change it.
import { z } from 'zod';
import {
  createDb,
  migrateAll,
  migrationStatus,
  PendingMigrationsError,
  type Database,
  type MigrationSet,
} from '@acme/db';
import { serviceDatabaseFromEnv } from './config.ts';

/** `<PREFIX>_MIGRATE_AT_START`: `true` (default) applies pending migrations at start, `false` only checks. */
export const migrateAtStartSchema = z
  .enum(['true', 'false'])
  .default('true')
  .transform((v) => v === 'true')
  .describe(
    'true: apply pending database migrations at start; false: refuse to start while any is pending (run `<part> migrate` first, e.g. from a Job).',
  );

/** What an entry point was asked to do. */
export type EntryCommand = 'serve' | 'migrate' | 'migrate-status';

/** Exit status of a command line the entry point does not know (sysexits' EX_USAGE). */
const USAGE_EXIT = 64;

export interface EntryIo {
  out(text: string): void;
  err(text: string): void;
  exit(code: number): never;
}

const processIo: EntryIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
};

/** The command in `argv` (the arguments after the entry point); a wrong one prints the usage and exits 64. */
export function entryCommand(
  service: string,
  argv: readonly string[],
  io: EntryIo = processIo,
): EntryCommand {
  const line = argv.join(' ');
  if (line === '') return 'serve';
  if (line === 'migrate') return 'migrate';
  if (line === 'migrate status') return 'migrate-status';
  io.err(
    `Usage: ${service} [migrate | migrate status]\n` +
      '  (none)          serve\n' +
      '  migrate         apply the pending migrations, then exit\n' +
      '  migrate status  list applied and pending migrations; exit 1 if any is pending\n',
  );
  return io.exit(USAGE_EXIT);
}

/**
 * Runs `migrate` or `migrate status` on `db` and returns the exit status: 0 when done (`migrate`)
 * or when nothing is pending (`migrate status`), 1 when something is pending.
 */
export async function runMigrationCommand(
  service: string,
  command: Exclude<EntryCommand, 'serve'>,
  db: Database,
  sets: MigrationSet[],
  io: Pick<EntryIo, 'out'> = processIo,
): Promise<number> {
  if (command === 'migrate') {
    const applied = await migrateAll(db, sets);
    io.out(
      applied.length === 0
        ? `${service}: no pending migrations\n`
        : `${service}: applied ${applied.length} migration(s)\n${applied.map((m) => `  ${m}\n`).join('')}`,
    );
    return 0;
  }
  const states = await migrationStatus(db, sets);
  const pending = states.filter((s) => s.appliedAt === null);
  io.out(`${service}: ${states.length - pending.length} applied, ${pending.length} pending\n`);
  for (const s of states) {
    const when = s.appliedAt ? s.appliedAt.toISOString() : '';
    io.out(`  ${s.appliedAt ? 'applied' : 'pending'}  ${s.namespace}/${s.name}  ${when}`.trimEnd() + '\n');
  }
  return pending.length > 0 ? 1 : 0;
}

/**
 * For an entry point's `start(…).catch(…)`: pending migrations found at start (with migration at
 * start off) end the process with status 1 and one line naming them, no stack trace; anything
 * else is thrown on.
 */
export function refuseOnPendingMigrations(
  service: string,
  setting: string,
  io: Pick<EntryIo, 'err' | 'exit'> = processIo,
): (error: unknown) => never {
  return (error) => {
    if (!(error instanceof PendingMigrationsError)) throw error;
    io.err(
      `${JSON.stringify({
        level: 'fatal',
        name: service,
        msg: `${setting} is false and ${error.pending.length} migration(s) are pending: ${error.pending.join(', ')}. Run \`${service} migrate\` (the migration step) first.`,
      })}\n`,
    );
    return io.exit(1);
  };
}

/** The entry point's migration command, if it was given one: runs it and exits. */
export async function exitAfterMigrationCommand(
  service: string,
  command: EntryCommand,
  db: Database,
  sets: MigrationSet[],
  io: EntryIo = processIo,
): Promise<void> {
  if (command === 'serve') return;
  let code: number;
  try {
    code = await runMigrationCommand(service, command, db, sets, io);
  } finally {
    await db.close();
  }
  io.exit(code);
}

/**
 * The start of a service's entry point: reads its command line (a wrong one: usage, exit 64), opens
 * its database from the environment (`DATABASE_URL`, else PGlite in the directory `dataDirVariable`
 * names, else in memory), and runs `migrate` / `migrate status` when asked, then exits. Serving,
 * it answers the database.
 */
export async function openServiceDatabase(
  service: string,
  dataDirVariable: string,
  sets: MigrationSet[],
): Promise<Database> {
  const command = entryCommand(service, process.argv.slice(2));
  const db = await createDb(serviceDatabaseFromEnv(dataDirVariable));
  await exitAfterMigrationCommand(service, command, db, sets);
  return db;
}
