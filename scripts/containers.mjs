// The container engine of `npm run image`, `npm run deploy:local` and the production test stage:
// podman (installed and configured when running as root on Debian and missing), or docker where
// podman cannot be installed and a docker daemon answers (a docker client alone is not an engine).
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
/** What this tooling keeps between runs (the Debian base's tarball, the engine's settings). */
export const stateDir = process.env.ACME_CONTAINERS_DIR ?? '/var/tmp/acme-account';
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/**
 * The engine's settings, in a file of ours (podman reads only the file CONTAINERS_CONF names),
 * never the machine's /etc/containers/containers.conf:
 * - no default ulimits: raising RLIMIT_NOFILE is not permitted in these machines' containers;
 * - runc: crun refuses cgroups in hybrid mode;
 * - cgroupfs: there is no systemd to manage cgroups.
 */
const CONTAINERS_CONF =
  '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n';

export class EngineMissing extends Error {}

/** Whether a docker daemon answers (`docker info` within 10 s), not only whether its client is installed. */
const dockerAnswers = () =>
  has('docker') && spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 }).status === 0;

/**
 * The engine to use: `{ cmd, env, podman }`. Installs podman (with runc and mmdebstrap) through
 * apt-get when running as root on Debian and neither engine is present; throws EngineMissing with
 * one sentence saying why otherwise.
 */
export function engine() {
  if (!has('podman')) {
    const canInstall = process.getuid?.() === 0 && existsSync('/etc/debian_version') && has('apt-get');
    // docker only where its daemon answers: a machine may have the client alone (no engine behind
    // it), and podman, installable here, is the engine the production stage plays manifests with.
    if (!canInstall && dockerAnswers()) return { cmd: 'docker', env: process.env, podman: false };
    if (!canInstall) {
      throw new EngineMissing(
        'No container engine: podman is not installed, docker (if present) has no daemon answering, and podman can only be installed here as root on Debian (apt-get install podman runc mmdebstrap).',
      );
    }
    console.log('Installing podman, runc and mmdebstrap (apt-get)…');
    const ok = (c) => spawnSync('sh', ['-c', c], { stdio: 'inherit' }).status === 0;
    if (
      !ok('apt-get update -qq') ||
      !ok('DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap >/dev/null') ||
      !has('podman')
    ) {
      throw new EngineMissing('podman could not be installed with apt-get.');
    }
  }
  mkdirSync(stateDir, { recursive: true });
  const conf = join(stateDir, 'containers.conf');
  if (!existsSync(conf) || readFileSync(conf, 'utf8') !== CONTAINERS_CONF)
    writeFileSync(conf, CONTAINERS_CONF);
  return { cmd: 'podman', env: { ...process.env, CONTAINERS_CONF: conf }, podman: true };
}

/** Runs the engine; returns its status, output shown. */
export function run(eng, args, options = {}) {
  const r = spawnSync(eng.cmd, args, { stdio: 'inherit', env: eng.env, cwd: root, ...options });
  return r.status ?? 1;
}

/** Runs the engine and returns its standard output (trimmed), or throws with its error output. */
export function capture(eng, args) {
  const r = spawnSync(eng.cmd, args, { encoding: 'utf8', env: eng.env, cwd: root });
  if (r.status !== 0) throw new Error(`${eng.cmd} ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}
