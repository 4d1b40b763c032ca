// nginx as a child process, from a scratch prefix: the load balancer of the scaled-out development
// system (`npm run start:cluster`, the cluster journeys) and of the tests that need one.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePortsApart } from './free-ports.ts';
import { renderNginxConfig, type NginxOptions } from './nginx.ts';

export interface RunningNginx {
  /** The scratch prefix: `nginx.conf`, `error.log`, the pid file and temporary files. */
  prefix: string;
  pid: number;
  /** What nginx wrote to its error log so far. */
  errors(): Promise<string>;
  /** Graceful stop (requests in flight finish), then the prefix is removed. */
  close(): Promise<void>;
  /**
   * Rewrites the configuration and reloads it (SIGHUP): new workers take the new configuration, the
   * old ones finish their requests in flight and close their connections to the instances. Resolves
   * once the old workers have gone.
   */
  reload(options: NginxOptions): Promise<void>;
}

/** Debian's nginx (`nginx-light` is enough) on the PATH or in /usr/sbin, which a user's PATH may lack. */
export function nginxBinary(): string | undefined {
  const onPath = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  if (onPath.status === 0 && onPath.stdout.trim()) return onPath.stdout.trim();
  return existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : undefined;
}

// nginx runs under a shell that holds the end of a pipe from this process: when this process
// closes it (close()) or dies, the shell asks nginx to stop gracefully (SIGQUIT). A load balancer is
// never left behind holding the system's ports. The shell's exit status is nginx's.
const SUPERVISOR = [
  'exec 3<&0',
  '"$0" -p "$1" -c "$1/nginx.conf" -e "$1/error.log" -g "daemon off;" </dev/null &',
  'n=$!',
  '{ cat <&3 >/dev/null; kill -QUIT "$n" 2>/dev/null; } >/dev/null 2>&1 &',
  'wait "$n"',
].join('\n');

/**
 * Writes the configuration into a new scratch prefix and starts nginx on it; resolves once nginx
 * listens on every site's port (it writes its pid file after binding them all). Throws, with nginx's error log, when nginx is not
 * installed or exits first.
 */
export async function startNginx(options: NginxOptions): Promise<RunningNginx> {
  const binary = nginxBinary();
  if (!binary) {
    throw new Error(
      'nginx is not installed: the scaled-out system runs behind it (Debian: apt-get install nginx-light).',
    );
  }
  const prefix = await mkdtemp(join(tmpdir(), 'acme-nginx-'));
  // Workers run as an unprivileged user when nginx is started as root: they must reach the prefix.
  await chmod(prefix, 0o755);
  await mkdir(join(prefix, 'tmp'));
  await writeFile(
    join(prefix, 'nginx.conf'),
    renderNginxConfig({ ...options, scratch: true, errorLog: options.errorLog ?? 'error.log' }),
  );
  const child: ChildProcess = spawn('sh', ['-c', SUPERVISOR, binary, prefix], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-16_384)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  const errors = () => readFile(join(prefix, 'error.log'), 'utf8').catch(() => '');
  const close = async () => {
    if (exitCode === undefined) {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(prefix, { recursive: true, force: true });
  };

  const deadline = Date.now() + 15_000;
  while (!existsSync(join(prefix, 'nginx.pid'))) {
    if (exitCode !== undefined || Date.now() > deadline) {
      const log = `${stderr}${await errors()}`;
      await close();
      throw new Error(
        exitCode === undefined
          ? `nginx did not start in time:\n${log}`
          : `nginx exited (${exitCode}) before it was ready:\n${log}`,
      );
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  const workers = async (master: number) =>
    (await readFile(`/proc/${master}/task/${master}/children`, 'utf8').catch(() => ''))
      .split(' ')
      .filter(Boolean);
  const reload = async (next: NginxOptions) => {
    await writeFile(
      join(prefix, 'nginx.conf'),
      renderNginxConfig({ ...next, scratch: true, errorLog: next.errorLog ?? 'error.log' }),
    );
    const master = Number((await readFile(join(prefix, 'nginx.pid'), 'utf8')).trim());
    const before = await workers(master);
    process.kill(master, 'SIGHUP');
    const until = Date.now() + 30_000;
    while (Date.now() < until) {
      const now = await workers(master);
      if (now.length > 0 && !now.some((pid) => before.includes(pid))) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`nginx did not reload in time:\n${await errors()}`);
  };
  return { prefix, pid: child.pid ?? 0, errors, close, reload };
}

export interface LoadBalancer extends RunningNginx {
  /** nginx's address, `http://localhost:<port>`. */
  url: string;
  port: number;
}

/**
 * nginx on a free loopback port in front of `targets` (the instances' base URLs), round-robin,
 * with the production configuration's proxy rules: for tests and benchmarks.
 */
export async function startLoadBalancer(
  targets: string[],
  options: { workers?: number | 'auto' } = {},
): Promise<LoadBalancer> {
  const [port] = await freePortsApart(1);
  const running = await startNginx({
    sites: [{ name: 'instances', port: port!, servers: targets.map((t) => new URL(t).host) }],
    workerProcesses: options.workers ?? 1,
    accessLog: false,
    revealUpstream: true,
  });
  return { ...running, url: `http://localhost:${port}`, port: port! };
}
