import { spawn } from 'node:child_process';
import { partCommand, repoRoot, type Part, type Runtime } from '@acme/cluster/processes';

export interface EntryRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a part's entry point with `args` (e.g. `migrate status`) to its end. */
export function runEntry(
  part: Part,
  args: string[],
  env: Record<string, string>,
  runtime: Runtime = 'source',
): Promise<EntryRun> {
  const { command, args: base } = partCommand(part, runtime);
  const child = spawn(command, [...base, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The four services with a database, and the prefix of each one's settings. */
export const DATABASE_SERVICES = {
  identity: 'IDENTITY',
  oauth2: 'OAUTH2',
  users: 'USERS',
  agent: 'AGENT',
} as const;

/** Every service's `<PREFIX>_MIGRATE_AT_START=false`: the schema is the migration step's. */
export const NO_MIGRATION_AT_START: Record<string, string> = Object.fromEntries(
  Object.values(DATABASE_SERVICES).map((prefix) => [`${prefix}_MIGRATE_AT_START`, 'false']),
);
