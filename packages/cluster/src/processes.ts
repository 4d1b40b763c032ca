import { spawn, type ChildProcess } from 'node:child_process';
import { MALLOC_ENV } from '@acme/service-kit/malloc';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is packages/cluster/src/processes.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Each part's entry point; every one is configured from its environment only. */
export const ENTRY_POINTS = {
  identity: 'services/identity/src/main.ts',
  oauth2: 'services/oauth2/src/main.ts',
  users: 'services/users/src/main.ts',
  agent: 'services/agent/src/main.ts',
  account: 'apps/account/server/main.ts',
  standIns: 'dev/src/main.ts',
} as const;

export type Part = keyof typeof ENTRY_POINTS;

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  /** What the process wrote to stderr and stdout so far (the last 64 KiB), for a failure's message. */
  output(): string;
  /** SIGTERM, then wait for the exit (SIGKILL after `timeoutMs`); resolves to the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export interface SpawnOptions {
  /** A label for logs and errors, e.g. `identity-1`. */
  name: string;
  env: Record<string, string>;
  /** Polled until it answers below 500: the process is then ready. */
  readyUrl: string;
  readyTimeoutMs?: number;
  /** Pass the child's output through to this process's (else it is kept for errors only). */
  inheritOutput?: boolean;
}

/**
 * Starts one part on its own Node process, as its `npm start` does (the thread-pool preload
 * first, then tsx), and resolves once `readyUrl` answers.
 */
export async function spawnPart(part: Part, options: SpawnOptions): Promise<ServiceProcess> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      join(repoRoot, 'packages/service-kit/threadpool.mjs'),
      '--import',
      'tsx',
      join(repoRoot, ENTRY_POINTS[part]),
    ],
    {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...MALLOC_ENV, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let buffer = '';
  const keep = (chunk: Buffer) => {
    buffer = (buffer + chunk.toString()).slice(-65_536);
    if (options.inheritOutput) process.stderr.write(prefixLines(options.name, chunk.toString()));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));

  const proc: ServiceProcess = {
    name: options.name,
    child,
    output: () => buffer,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let early: number | null | undefined;
  void exited.then((code) => (early = code));
  for (;;) {
    if (early !== undefined)
      throw new Error(`${options.name} exited (${early}) before it was ready:\n${buffer}`);
    try {
      const res = await fetch(options.readyUrl, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      // A 2xx from the ready path only: any answer at all could come from another server that holds
      // the port (the process then fails to bind and exits, which the loop sees).
      if (res.ok) return proc;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.stop(2_000);
      throw new Error(`${options.name} was not ready at ${options.readyUrl} in time:\n${buffer}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

function prefixLines(name: string, text: string): string {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => `[${name}] ${line}\n`)
    .join('');
}

/** Stops every process, last started first; never throws. */
export async function stopAll(processes: ServiceProcess[]): Promise<void> {
  for (const proc of [...processes].reverse()) {
    try {
      await proc.stop();
    } catch {
      // keep stopping the rest
    }
  }
}
