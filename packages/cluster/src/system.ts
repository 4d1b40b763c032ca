// The system as separate processes on one PostgreSQL database: each part on its own entry point,
// optionally several instances of each behind nginx on the browser-facing ports (one site per
// listener, round-robin, the configuration of nginx.ts).
import { freePortsApart } from './free-ports.ts';
import {
  spawnPart,
  stopAll,
  type Part,
  type Runtime,
  type ServiceProcess,
  type SpawnOptions,
} from './processes.ts';
import { startNginx, type RunningNginx } from './nginx-process.ts';
import type { NginxSite } from './nginx.ts';
import { adminKeys, partEnv } from './service-env.ts';
import {
  MANAGEMENT_LISTENER,
  PART_LISTENERS,
  systemShape,
  USUAL_PORTS,
  type Listener,
  type Ports,
} from '@acme/system-shape';

/** Where each part answers once it is up: its management listener's readiness (the stand-ins' own). */
const READY_LISTENER: Record<Part, { listener: Listener; path: string }> = {
  identity: { listener: 'identityManagement', path: '/health/ready' },
  oauth2: { listener: 'oauth2Management', path: '/health/ready' },
  users: { listener: 'usersManagement', path: '/health/ready' },
  agent: { listener: 'agentManagement', path: '/health/ready' },
  account: { listener: 'accountManagement', path: '/health/ready' },
  standIns: { listener: 'standIns', path: '/health' },
};

/**
 * Readiness of an instance run from another checkout (`instanceFrom`): an earlier release may have
 * no management listener, so its admin listener's (which it has always had) is asked instead.
 */
const EARLIER_RELEASE_READY: Record<Part, { listener: Listener; path: string }> = {
  ...READY_LISTENER,
  identity: { listener: 'identityAdmin', path: '/health/ready' },
  oauth2: { listener: 'oauth2Admin', path: '/health/ready' },
  users: { listener: 'usersAdmin', path: '/health/ready' },
  agent: { listener: 'agentAdmin', path: '/health/ready' },
  account: { listener: 'platform', path: '/account/' },
};

export interface ClusterOptions {
  /** PostgreSQL for every process; without it each process has its own in-memory PGlite. */
  databaseUrl?: string;
  /** Parts to start, in this order (stand-ins first if at all: the others' mail goes there). */
  parts: Part[];
  /** Instances per part (the stand-ins always run once: their state is in memory). */
  instances?: number;
  /** Browser-facing ports (nginx's, or the single instance's); the usual ones by default. */
  ports?: Partial<Ports>;
  /** One key for every admin API (at least 32 characters), or none (loopback admin APIs). */
  adminKey?: string;
  /** Client secret of the identity service at the organisation IdP stand-in (the seed stores it). */
  orgIdpClientSecret?: string;
  /** A prebuilt account app (`vite build` output); the account part needs one. */
  accountDistDir?: string;
  logLevel?: string;
  /** Extra environment for every part. */
  extraEnv?: Record<string, string>;
  inheritOutput?: boolean;
  /** Compiled output (`npm run build` first) or TypeScript sources through tsx (the default). */
  runtime?: Runtime;
  /** nginx's worker processes in front of several instances (default `auto`, one per core). */
  nginxWorkers?: number | 'auto';
  /**
   * Runs an instance from another checkout (an earlier release, built there), e.g. the first
   * instance of each part during a rolling upgrade; others run from this one, as `runtime` says.
   */
  instanceFrom?: (part: Part, index: number) => { root: string; runtime: Runtime } | undefined;
}

export interface RunningCluster {
  /** Browser-facing URL of every listener. */
  urls: Record<Listener, string>;
  processes: ServiceProcess[];
  /** The load balancer in front of the parts that run several instances (none with one each). */
  nginx: RunningNginx | undefined;
  /** Each process's own ports, by its name (`identity-1`…): to reach one instance past nginx. */
  instancePorts: Map<string, Ports>;
  /**
   * Stops the named process (SIGTERM: it drains) if it still runs and starts it again with the
   * environment it had (after a `kill -9`, for example), with `env` laid over it from then on (a
   * rolling change of configuration, such as a secret rotation); replaces it in `processes` and
   * resolves once it is ready.
   */
  restart(name: string, env?: Record<string, string>): Promise<ServiceProcess>;
  close(): Promise<void>;
}

/**
 * Starts the parts as child processes; with `instances` > 1, nginx in front of every listener of
 * each part that runs several (started first, so that a part may call another's browser-facing URL
 * as soon as it is up).
 */
export async function startProcessCluster(options: ClusterOptions): Promise<RunningCluster> {
  const ports: Ports = { ...USUAL_PORTS, ...options.ports };
  const urls = systemShape({ ports }).listeners;
  const processes: ServiceProcess[] = [];
  let nginx: RunningNginx | undefined;
  const specs = new Map<string, { part: Part; options: SpawnOptions }>();
  const byName = new Map<string, Ports>();
  const close = async () => {
    // The load balancer first: nothing new reaches the instances while they drain.
    await nginx?.close().catch(() => undefined);
    await stopAll(processes);
  };
  // Each part's instances' ports: the browser-facing ones for a single instance, free ones apart
  // from them for several (nginx listens on the browser-facing ones).
  const instancePorts = new Map<Part, Ports[]>();
  const sites: NginxSite[] = [];
  for (const part of options.parts) {
    const count = part === 'standIns' ? 1 : (options.instances ?? 1);
    const own: Ports[] = [];
    for (let i = 0; i < count; i++) {
      const instance: Ports = { ...ports };
      if (count > 1) {
        const apart = await freePortsApart(PART_LISTENERS[part].length);
        PART_LISTENERS[part].forEach((listener, k) => {
          // The first instance keeps the usual management port (nothing fronts it); the others get free ones.
          if (i > 0 || listener !== MANAGEMENT_LISTENER[part]) instance[listener] = apart[k]!;
        });
      }
      own.push(instance);
    }
    instancePorts.set(part, own);
    if (count > 1) {
      for (const listener of PART_LISTENERS[part]) {
        if (listener === MANAGEMENT_LISTENER[part]) continue;
        sites.push({
          name: listener.replaceAll('-', '_'),
          port: ports[listener],
          servers: own.map((instance) => `127.0.0.1:${instance[listener]}`),
        });
      }
    }
  }
  const nginxOptions = {
    sites,
    workerProcesses: options.nginxWorkers ?? 'auto',
    // The instances log every request themselves.
    accessLog: false,
    // Tests see which instance answered.
    revealUpstream: true,
  } as const;
  /** nginx with `instance` out of rotation (none: every instance in). */
  const rotation = (instance: Ports | undefined) => {
    const out = new Set(Object.values(instance ?? {}).map((port) => `127.0.0.1:${port}`));
    return {
      ...nginxOptions,
      sites: sites.map((site) => ({ ...site, down: site.servers.filter((s) => out.has(s)) })),
    };
  };
  try {
    if (sites.length > 0) nginx = await startNginx(nginxOptions);
    for (const part of options.parts) {
      const own = instancePorts.get(part)!;
      const several = own.length > 1;
      // Settled, not Promise.all: when one instance fails to start, the ones that did are stopped too.
      const settled = await Promise.allSettled(
        own.map((instance, i) => {
          const from = options.instanceFrom?.(part, i);
          const ready = (from ? EARLIER_RELEASE_READY : READY_LISTENER)[part];
          const spawnOptions: SpawnOptions = {
            name: several ? `${part}-${i + 1}` : part,
            env: {
              ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
              LOG_LEVEL: options.logLevel ?? 'warn',
              ...adminKeys(options.adminKey),
              ...partEnv(part, instance, urls, { ...options, smtp: `smtp://127.0.0.1:${instance.smtp}` }),
              // Behind nginx, per-IP limits and recorded addresses take the client's from the
              // X-Forwarded-For nginx writes: exactly 1 hop is trusted, so a value the client
              // wrote is never taken (TRUST_PROXY, the same in every service).
              ...(several ? { TRUST_PROXY: '1' } : {}),
              ...options.extraEnv,
            },
            readyUrl: `http://127.0.0.1:${instance[ready.listener]}${ready.path}`,
            inheritOutput: options.inheritOutput ?? false,
            runtime: options.runtime ?? 'source',
            ...from,
          };
          specs.set(spawnOptions.name, { part, options: spawnOptions });
          byName.set(spawnOptions.name, instance);
          return spawnPart(part, spawnOptions);
        }),
      );
      for (const r of settled) if (r.status === 'fulfilled') processes.push(r.value);
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await close();
    throw error;
  }
  const restart = async (name: string, env: Record<string, string> = {}) => {
    const spec = specs.get(name);
    const index = processes.findIndex((p) => p.name === name);
    if (!spec || index < 0) throw new Error(`no process named ${name}`);
    // As an orchestrator does: out of the load balancer first (requests in flight there finish), then
    // stopped (it drains), started, and back in once ready.
    const balanced = nginx !== undefined && (instancePorts.get(spec.part)?.length ?? 0) > 1;
    if (balanced) await nginx!.reload(rotation(byName.get(name)));
    await processes[index]!.stop(15_000);
    spec.options = { ...spec.options, env: { ...spec.options.env, ...env } };
    const again = await spawnPart(spec.part, spec.options);
    processes[index] = again;
    if (balanced) await nginx!.reload(rotation(undefined));
    return again;
  };
  return { urls, processes, nginx, instancePorts: byName, restart, close };
}
