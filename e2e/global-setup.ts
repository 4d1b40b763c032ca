import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { DISABLE_PROTO_FLAG, STARTED_WITHOUT_FLAG } from '@acme/service-kit/prototype';
import type { SystemUrls } from '../scripts/system.ts';

const root = join(import.meta.dirname, '..');

/** The journeys' device client whose codes expire after 3 s. */
export const EXPIRING_DEVICE_CLIENT = 'research-cli-expiring';

/** How long after a sign-in the journeys' system lets a person unlink the source-code host. */
export const UNLINK_PRIVILEGED_SECONDS = 18;

/**
 * One whole system for the journeys, on its own port range so a running `npm start` does not
 * get in the way, run from the compiled output as production runs it (`npm run build` first: only
 * what is stale is compiled). E2E_TARGET picks which:
 * - unset or `process`: `npm start`'s process (scripts/dist/start.js) on a fresh in-memory database
 *   (PGlite), npm start's ports + 10000 (E2E_PORT_OFFSET);
 * - `cluster`: the scaled-out system of `npm run start:cluster` (two processes of every service
 *   behind nginx, a throwaway PostgreSQL), npm start's ports + 20000.
 * Either way the journeys get only the browser-facing URLs, and the same demo data.
 */
export default async function setup(project: TestProject) {
  const target = process.env.E2E_TARGET ?? 'process';
  const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('scripts/build.mjs failed');
  const { LOOPBACK_TEST_LIMITS } = await import('../scripts/demo.ts');
  // The journeys' system: loopback limits, and a device client whose codes live 3 s, so that
  // e2e/device.e2e.ts can watch a code expire (code_ttl_seconds; research-cli keeps 600 s).
  // Unlinking the source-code host needs a sign-in of the last 18 s here (60 min by default), so that
  // e2e/settings-accounts.e2e.ts can watch the account page ask for the password first. The user
  // service's old name (minutes) sets it for that service alone; the shared PRIVILEGED_SESSION_MAX_AGE
  // would shorten the identity service's credential changes in every other journey too. Whether
  // self sign-up is open anywhere is held 1 s (30 s by default), so that a journey that opens or
  // closes it waits a second, not half a minute.
  const extraEnv = {
    ...LOOPBACK_TEST_LIMITS,
    IDENTITY_SIGNUP_OPEN_CACHE: '1s',
    PRIVILEGED_SESSION_MAX_AGE_MINUTES: String(UNLINK_PRIVILEGED_SECONDS / 60),
    OAUTH2_DEVICE_CLIENTS: JSON.stringify([
      { client_id: 'research-cli', client_name: 'Research CLI' },
      { client_id: EXPIRING_DEVICE_CLIENT, client_name: 'Research CLI (expiring)', code_ttl_seconds: 3 },
    ]),
  };
  let urls: SystemUrls;
  let close: () => Promise<void>;
  let adminKey: string | undefined;
  if (target === 'cluster') {
    const { startScaledSystem } = await import('../scripts/cluster-system.ts');
    const system = await startScaledSystem({
      portOffset: Number(process.env.E2E_PORT_OFFSET ?? 20_000),
      instances: 2,
      logLevel: 'warn',
      // E2E_CLUSTER_OUTPUT=1 shows what the processes log (prefixed with their names).
      inheritOutput: process.env.E2E_CLUSTER_OUTPUT === '1',
      extraEnv,
    });
    // The cluster always runs with every admin API keyed (a fresh key per run): the journeys send it.
    ({ urls, close, adminKey } = system);
  } else if (target === 'process') {
    ({ urls, close } = await startCompiledSystem(Number(process.env.E2E_PORT_OFFSET ?? 10_000), extraEnv));
    adminKey = process.env.ADMIN_KEY || undefined;
  } else {
    throw new Error(`E2E_TARGET: expected "process" or "cluster", not "${target}"`);
  }
  project.provide('urls', urls);
  project.provide('adminKey', adminKey ?? '');
  project.provide('target', target === 'cluster' ? 'cluster' : 'process');
  return close;
}

/**
 * `npm start`'s process as the package script runs it (compiled, the thread-pool preload first),
 * on a fresh in-memory database with the journeys' settings (the raised loopback limits among them);
 * it sends its URLs once it is up.
 */
async function startCompiledSystem(portOffset: number, extraEnv: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [
      DISABLE_PROTO_FLAG,
      '--conditions=compiled',
      '--import',
      './packages/service-kit/threadpool.mjs',
      'scripts/dist/start.js',
    ],
    {
      cwd: root,
      env: {
        ...process.env,
        MALLOC_MMAP_THRESHOLD_: '4194304',
        START_DATABASE: 'memory',
        START_PORT_OFFSET: String(portOffset),
        START_EXTRA_ENV: JSON.stringify(extraEnv),
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-16_384)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const urls = await new Promise<SystemUrls>((resolve, reject) => {
    child.on('message', (m: { ready?: SystemUrls }) => m.ready && resolve(m.ready));
    void exited.then((code) =>
      reject(new Error(`the system exited (${code}) before it was ready:\n${stderr}`)),
    );
  });
  child.disconnect();
  // The flag above is in effect: the system would have said so on stderr otherwise.
  if (stderr.includes(STARTED_WITHOUT_FLAG))
    throw new Error(`the system ${STARTED_WITHOUT_FLAG}:\n${stderr}`);
  const close = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return { urls, close };
}

declare module 'vitest' {
  export interface ProvidedContext {
    urls: import('../scripts/system.ts').SystemUrls;
    /** Which system the journeys run against: `process` (one process, PGlite) or `cluster`. */
    target: 'process' | 'cluster';
    /** The admin APIs' bearer key ('' when they need none): fixtures send it on every admin call. */
    adminKey: string;
  }
}
