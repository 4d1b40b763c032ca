import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@acme/cluster/processes';

/** What the Dockerfile's runtime stage sets (`ENV`), but the account app's build directory. */
export const IMAGE_ENV: Record<string, string> = {
  NODE_ENV: 'production',
  MALLOC_MMAP_THRESHOLD_: '4194304',
  IDENTITY_PUBLIC_HOST: '0.0.0.0',
  OAUTH2_PUBLIC_HOST: '0.0.0.0',
  USERS_HOST: '0.0.0.0',
  AGENT_HOST: '0.0.0.0',
  ACCOUNT_HOST: '0.0.0.0',
};

/** `npm run build`'s compile step (only what is stale), as the image's build stage runs it. */
export function buildServices(): void {
  const run = spawnSync(process.execPath, [join(repoRoot, 'scripts/build.mjs')], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`scripts/build.mjs failed:\n${run.stderr}`);
}

/** The command line of a running process (Linux), to see what it runs. */
export function commandLine(pid: number): string[] {
  const run = spawnSync('cat', [`/proc/${pid}/cmdline`], { encoding: 'utf8' });
  return run.stdout.split('\0').filter(Boolean);
}
