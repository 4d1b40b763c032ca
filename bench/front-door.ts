// `BENCH_ONLY=front-door npm run bench`: nginx as the front door. Two identity processes on a
// throwaway PostgreSQL server behind nginx (the configuration of `npm run start:cluster`), against
// one of those processes asked directly, in the same run: `/health/alive` (the proxying cost alone)
// and whoami with a session (answered from the per-instance session cache); then the authorization
// server's refresh with rotation (two oauth2 processes behind nginx against one of them, on the same
// PostgreSQL server; bench/oauth2-bench.ts). Also the CPU time nginx and the instances used per
// 1,000 requests (from /proc), to show where the time goes.
import { readFileSync, readdirSync } from 'node:fs';
import type { Result } from 'autocannon';
import { freePortsApart } from '@acme/cluster/free-ports';
import { USUAL_PORTS, type Listener, type Ports } from '@acme/system-shape';
import { startProcessCluster } from '@acme/cluster/system';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { startCluster } from '@acme/cluster/postgres';
import { runLoadChild } from './load/child.ts';
import { benchRefreshFrontDoor } from './oauth2-bench.ts';
import { passwordLogin } from './load/password-login.ts';
import { summarise } from './summarise.ts';

const autocannon = (options: Record<string, unknown>) => runLoadChild<Result>('autocannon', options);
const EMAIL = 'front-door@example.com';
const PASSWORD = 'correct horse battery staple 42';
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) a process and all its descendants have used so far. */
export function cpuSeconds(root: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Fields after the command name (which may hold spaces), from `) `: state, ppid, … utime(14), stime(15).
      const text = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(') ') + 2).split(' ');
      stats.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  let ticks = 0;
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.pop()!;
    ticks += stats.get(pid)?.ticks ?? 0;
    for (const [child, s] of stats) if (s.ppid === pid) queue.push(child);
  }
  return ticks / TICKS_PER_SECOND;
}

export async function benchFrontDoor(opts: { durationSec: number; connections: number }) {
  const postgres = await startCluster();
  try {
    const identity = await benchIdentityFrontDoor(postgres.url, opts);
    // The identity processes are stopped by now: the refresh runs on its own processes.
    const refresh = await benchRefreshFrontDoor(postgres.url, opts);
    const ratio = round(refresh.nginx.requestsPerSec / refresh.direct.requestsPerSec);
    return { ...identity, refresh: { ...refresh, nginxVsDirect: ratio } };
  } finally {
    postgres.stop();
  }
}

async function benchIdentityFrontDoor(
  databaseUrl: string,
  opts: { durationSec: number; connections: number },
) {
  const names = Object.keys(USUAL_PORTS) as Listener[];
  const free = await freePortsApart(names.length);
  const ports = Object.fromEntries(names.map((n, i) => [n, free[i]!])) as Ports;
  const cluster = await startProcessCluster({
    databaseUrl,
    parts: ['identity'],
    instances: 2,
    ports,
    runtime: 'compiled',
    logLevel: 'warn',
    extraEnv: { MAIL_WORKER: 'false', IDENTITY_IP_FAILURE_LIMIT: '1000000' },
  });
  try {
    await createIdentityAdminClient({ baseUrl: cluster.urls.identityAdmin }).createIdentity({
      schema_id: 'default',
      traits: { email: EMAIL, name: { first: 'Front', last: 'Door' } },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: EMAIL, verified: true, via: 'email' }],
    });
    const viaNginx = cluster.urls.identityPublic.replace('localhost', '127.0.0.1');
    const direct = `http://127.0.0.1:${cluster.instancePorts.get('identity-1')!.identityPublic}`;
    const login = await passwordLogin(viaNginx, EMAIL, PASSWORD);
    if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
    const identityPids = cluster.processes.map((p) => p.child.pid!);
    const nginxPid = cluster.nginx!.pid;

    const run = async (url: string, headers: Record<string, string> = {}) => {
      const before = { nginx: cpuSeconds(nginxPid), instances: identityPids.map(cpuSeconds) };
      const result = await autocannon({
        url,
        connections: opts.connections,
        duration: opts.durationSec,
        headers,
      });
      const figures = summarise(result);
      const requests = result.requests.total || 1;
      const instancesCpu = identityPids.reduce(
        (sum, pid, i) => sum + cpuSeconds(pid) - before.instances[i]!,
        0,
      );
      return {
        ...figures,
        cpuSecondsPer1000Requests: {
          nginx: round((cpuSeconds(nginxPid) - before.nginx) / (requests / 1000)),
          instances: round(instancesCpu / (requests / 1000)),
        },
      };
    };
    const whoamiHeaders = { cookie: login.cookie, accept: 'application/json' };
    const alive = {
      direct: await run(`${direct}/health/alive`),
      nginx: await run(`${viaNginx}/health/alive`),
    };
    const whoami = {
      direct: await run(`${direct}/sessions/whoami`, whoamiHeaders),
      nginx: await run(`${viaNginx}/sessions/whoami`, whoamiHeaders),
    };
    const ratio = (w: { direct: { requestsPerSec: number }; nginx: { requestsPerSec: number } }) =>
      round(w.nginx.requestsPerSec / w.direct.requestsPerSec);
    return {
      method:
        'identity (health, whoami) and the authorization server (refresh with rotation) on PostgreSQL: one process asked directly against two processes behind nginx (worker_processes auto), in the same run; servers pinned to one core, load on the other (see pinning).',
      healthAlive: { ...alive, nginxVsDirect: ratio(alive) },
      whoami: { ...whoami, nginxVsDirect: ratio(whoami) },
    };
  } finally {
    await cluster.close();
  }
}

const round = (n: number) => Math.round(n * 1000) / 1000;
