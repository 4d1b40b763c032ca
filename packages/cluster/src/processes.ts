import { spawn, type ChildProcess } from 'node:child_process';
import type { Part } from '@acme/system-shape';
import { existsSync } from 'node:fs';
import { MALLOC_ENV } from '@acme/service-kit/malloc';
import { DISABLE_PROTO_FLAG } from '@acme/service-kit/prototype';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (this file is packages/cluster/src/processes.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Each part's entry point; every one is configured from its environment only. */
export const ENTRY_POINTS: Record<Part, string> = {
  identity: 'services/identity/src/main.ts',
  oauth2: 'services/oauth2/src/main.ts',
  users: 'services/users/src/main.ts',
  agent: 'services/agent/src/main.ts',
  account: 'apps/account/server/main.ts',
  standIns: 'dev/src/main.ts',
};

export type { Part };

/** The same entry points compiled by `npm run build` (scripts/build.mjs). */
export const COMPILED_ENTRY_POINTS: Record<Part, string> = {
  identity: 'services/identity/dist/main.js',
  oauth2: 'services/oauth2/dist/main.js',
  users: 'services/users/dist/main.js',
  agent: 'services/agent/dist/main.js',
  account: 'apps/account/server/dist/server/main.js',
  standIns: 'dev/dist/main.js',
};

/**
 * Node's flag under which every workspace package resolves to its compiled `dist/` (the `compiled`
 * export condition of each package.json); without it, packages resolve to their TypeScript sources.
 */
export const COMPILED_CONDITION = '--conditions=compiled';

/**
 * V8's heap sizing for a service process (ADR 0016): a young generation of 2 × 2 MiB semi-spaces
 * instead of up to 2 × 16 MiB, which an idle process keeps committed. SERVICE_V8_FLAGS replaces it
 * (empty for V8's defaults), here as in docker/entrypoint.sh.
 */
export const SERVICE_V8_FLAGS = (process.env.SERVICE_V8_FLAGS ?? '--max-semi-space-size=2')
  .split(' ')
  .filter(Boolean);

/**
 * How a part runs: `compiled` (JavaScript from `npm run build`, as production runs it), `image`
 * (the same through the container's entry point, docker/entrypoint.sh, run on this machine) or
 * `source` (the TypeScript through tsx, as in development and tests).
 */
export type Runtime = 'compiled' | 'image' | 'source';

/** The container's argument that names each part (docker/entrypoint.sh). */
const IMAGE_PARTS: Record<Part, string> = {
  identity: 'identity',
  oauth2: 'oauth2',
  users: 'users',
  agent: 'agent',
  account: 'account',
  standIns: 'stand-ins',
};

/**
 * The command that starts `part`: without `Object.prototype.__proto__` (prototype.ts in the service
 * kit), the thread-pool preload first, then the entry point; of this checkout, or of another one at
 * `root` (an earlier release's, built there).
 */
export function partCommand(
  part: Part,
  runtime: Runtime,
  root: string = repoRoot,
): { command: string; args: string[] } {
  const threadpool = join(root, 'packages/service-kit/threadpool.mjs');
  // Tracing after the TypeScript loader (it imports the service kit), before the entry point; an
  // earlier release's checkout (a rolling upgrade's) may have none.
  const tracing = join(root, 'packages/service-kit/tracing.mjs');
  if (runtime === 'image')
    return { command: 'sh', args: [join(root, 'docker/entrypoint.sh'), IMAGE_PARTS[part]] };
  const args =
    runtime === 'compiled'
      ? [
          DISABLE_PROTO_FLAG,
          ...SERVICE_V8_FLAGS,
          COMPILED_CONDITION,
          '--import',
          threadpool,
          ...(existsSync(tracing) ? ['--import', tracing] : []),
          join(root, COMPILED_ENTRY_POINTS[part]),
        ]
      : [
          DISABLE_PROTO_FLAG,
          '--import',
          threadpool,
          '--import',
          'tsx',
          ...(existsSync(tracing) ? ['--import', tracing] : []),
          join(root, ENTRY_POINTS[part]),
        ];
  return { command: process.execPath, args };
}

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
  /** Compiled output or TypeScript sources (the default). */
  runtime?: Runtime;
  /** The checkout the part runs from (default this one). */
  root?: string;
}

/**
 * Starts one part on its own Node process, as the image's entry point does (the thread-pool
 * preload first, then the compiled entry point, or the sources through tsx), and resolves once
 * `readyUrl` answers.
 */
export async function spawnPart(part: Part, options: SpawnOptions): Promise<ServiceProcess> {
  const runtime = options.runtime ?? 'source';
  const root = options.root ?? repoRoot;
  const { command, args } = partCommand(part, runtime, root);
  // The entry point runs `node` from the PATH: this one's, and the checkout as the image's /app.
  const image = runtime === 'image' ? { APP_DIR: root } : {};
  const path = [...(runtime === 'image' ? [dirname(process.execPath)] : []), process.env.PATH ?? ''];
  const child = spawn(command, args, {
    cwd: root,
    env: { PATH: path.join(':'), HOME: process.env.HOME ?? '', ...MALLOC_ENV, ...image, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
