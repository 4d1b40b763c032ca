export { ENTRY_POINTS, repoRoot, spawnPart, stopAll, type Part, type ServiceProcess } from './processes.ts';
export { startRoundRobinProxy, UPSTREAM_HEADER, type RoundRobinProxy } from './proxy.ts';
export {
  partEnv,
  PART_LISTENERS,
  startProcessCluster,
  USUAL_PORTS,
  type ClusterOptions,
  type Listener,
  type Ports,
  type RunningCluster,
} from './system.ts';
