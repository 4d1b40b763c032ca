export {
  COMPILED_CONDITION,
  COMPILED_ENTRY_POINTS,
  ENTRY_POINTS,
  partCommand,
  repoRoot,
  spawnPart,
  stopAll,
  type Part,
  type Runtime,
  type ServiceProcess,
} from './processes.ts';
export { startRoundRobinProxy, UPSTREAM_HEADER, type RoundRobinProxy } from './proxy.ts';
export { partEnv, USUAL_PORTS, type Listener, type Ports } from './service-env.ts';
export { PART_LISTENERS, startProcessCluster, type ClusterOptions, type RunningCluster } from './system.ts';
