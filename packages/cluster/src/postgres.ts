import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortsApart } from './free-ports.ts';

export interface Cluster {
  url: string;
  /** Stops the server (fast shutdown: open connections are ended), keeping its files. */
  stopServer(): Promise<void>;
  /** Starts the stopped server again, on the same port with the same data. */
  startServer(): Promise<void>;
  /** Stops the server and removes its files. */
  stop(): void;
}

/**
 * Starts a throwaway PostgreSQL cluster on a free loopback port: for `npm run start:cluster` and
 * `npm run pg:cluster` (a runtime tool, hence here and not in the test kit) and the tests' runs. PostgreSQL refuses
 * to run as root, so as root the cluster belongs to the `postgres` system user.
 */
export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-cluster-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const [port] = await freePortsApart(1);
  const asRoot = process.getuid?.() === 0;
  const command = (cmd: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const run = (cmd: string, args: string[]) => execFileSync(...command(cmd, args), { stdio: 'pipe' });
  const runAsync = async (cmd: string, args: string[]) => {
    await promisify(execFile)(...command(cmd, args));
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const startArgs = [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`,
    'start',
  ];
  run('pg_ctl', startArgs);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stopServer: () => runAsync('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
    startServer: () => runAsync('pg_ctl', startArgs),
    stop() {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
