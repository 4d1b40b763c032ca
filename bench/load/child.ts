import { spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';

// The server side and the load generator on separate cores: the bench process (which hosts the
// servers under test) is pinned to core 0, and every load generator runs as its own child process
// pinned to core 1. On a machine without `taskset` or with one core, nothing is pinned and the
// result says so.

const hasTaskset = spawnSync('sh', ['-c', 'command -v taskset']).status === 0;
const pinning = hasTaskset && cpus().length >= 2;
const SERVER_CORE = 0;
const LOAD_CORE = 1;

/** Pins this process (all its threads, and the threads it starts later) to the server core. */
export function pinServerSide(): string {
  if (!pinning) return 'not pinned (taskset missing or one core)';
  const r = spawnSync('taskset', ['-a', '-p', '-c', String(SERVER_CORE), String(process.pid)]);
  if (r.status !== 0) return `not pinned (taskset failed: ${r.stderr.toString().trim()})`;
  return `servers on core ${SERVER_CORE}, load generators on core ${LOAD_CORE} (taskset)`;
}

/**
 * The command line that runs `command` free of the bench's pinning, on every core as the system
 * schedules it (as is where nothing is pinned): a client the bench starts itself, such as the browser
 * Lighthouse drives, which would otherwise inherit the server core and share that one core with the
 * servers it measures.
 */
export function onEveryCore(command: string, args: string[]): [string, string[]] {
  return pinning ? ['taskset', ['-c', `0-${cpus().length - 1}`, command, ...args]] : [command, args];
}

/**
 * Runs `bench/load/<script>.ts` as a child process on the load core, hands it `input` as JSON on
 * stdin, and answers what it printed as JSON on its last stdout line.
 */
export function runLoadChild<T>(script: string, input: unknown): Promise<T> {
  const file = join(import.meta.dirname, `${script}.ts`);
  const node = [process.execPath, '--import', 'tsx', file];
  const [cmd, ...args] = pinning ? ['taskset', '-c', String(LOAD_CORE), ...node] : node;
  return new Promise<T>((resolve, reject) => {
    const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${script} exited ${code}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

/** Reads the JSON input a load child was given on stdin. */
export async function readInput<T>(): Promise<T> {
  let data = '';
  for await (const chunk of process.stdin) data += chunk;
  return JSON.parse(data) as T;
}
