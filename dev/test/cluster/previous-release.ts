import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '@acme/cluster/processes';

/** Every file that holds migrations: a change to one is a schema change. */
const MIGRATION_FILES = [
  'services/identity/src/migrations.ts',
  'services/oauth2/src/migrations.ts',
  'services/users/src/migrations.ts',
  'services/agent/src/migrations.ts',
  'packages/mail/src/migrations.ts',
];

const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();

/**
 * The previous release for a rolling upgrade: `PREVIOUS_RELEASE` when set (any revision), else the
 * commit just before the newest change to the migrations on this branch's first-parent history,
 * i.e. the last release whose code has not seen the newest migration. Running that code on the
 * schema as this checkout migrates it is what a rollout does while old and new pods run side by side.
 */
export function previousReleaseRevision(): { sha: string; why: string } {
  const chosen = process.env.PREVIOUS_RELEASE;
  if (chosen) return { sha: git('rev-parse', `${chosen}^{commit}`), why: `PREVIOUS_RELEASE=${chosen}` };
  const change = git('log', '--first-parent', '-1', '--format=%H', 'HEAD', '--', ...MIGRATION_FILES);
  return {
    sha: git('rev-parse', `${change}^1`),
    why: `the commit before ${change.slice(0, 12)}, the newest change to the migrations`,
  };
}

/** The workspaces of a checkout: directory → package name. */
function workspaces(root: string): [string, string][] {
  const dirs = ['packages', 'services', 'apps']
    .flatMap((group) =>
      existsSync(join(root, group)) ? readdirSync(join(root, group)).map((name) => join(group, name)) : [],
    )
    .concat(['dev', 'e2e']);
  return dirs.flatMap((dir) => {
    const manifest = join(root, dir, 'package.json');
    if (!existsSync(manifest)) return [];
    return [[dir, (JSON.parse(readFileSync(manifest, 'utf8')) as { name: string }).name] as [string, string]];
  });
}

/**
 * The previous release's tree, compiled (scripts/build.mjs there), under
 * node_modules/.cache/previous-release/<sha>: built once and reused. Its third-party packages are
 * this checkout's (a superset: the lock file has only gained packages since), its own workspace
 * packages its own.
 */
export function buildPreviousRelease(sha: string): string {
  const cache = join(repoRoot, 'node_modules', '.cache', 'previous-release');
  const root = join(cache, sha);
  if (existsSync(join(root, '.built'))) return root;
  mkdirSync(cache, { recursive: true });
  const scratch = `${root}.${process.pid}.tmp`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch);
  try {
    const extract = spawnSync('sh', ['-c', 'git archive --format=tar "$0" | tar -x -C "$1"', sha, scratch], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    if (extract.status !== 0) throw new Error(`git archive ${sha} failed: ${extract.stderr.toString()}`);
    const modules = join(scratch, 'node_modules');
    mkdirSync(join(modules, '@acme'), { recursive: true });
    for (const entry of readdirSync(join(repoRoot, 'node_modules'))) {
      if (['@acme', '.bin', '.cache', '.package-lock.json'].includes(entry)) continue;
      symlinkSync(join(repoRoot, 'node_modules', entry), join(modules, entry));
    }
    for (const [dir, name] of workspaces(scratch)) {
      if (!name.startsWith('@acme/')) continue;
      const link = join(modules, name);
      symlinkSync(relative(join(modules, '@acme'), join(scratch, dir)), link);
    }
    execFileSync(process.execPath, [join(scratch, 'scripts', 'build.mjs')], { cwd: scratch, stdio: 'pipe' });
    writeFileSync(join(scratch, '.built'), `${sha}\n`);
    if (existsSync(join(root, '.built'))) rmSync(scratch, { recursive: true, force: true });
    else {
      rmSync(root, { recursive: true, force: true });
      renameSync(scratch, root);
    }
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
  return root;
}
