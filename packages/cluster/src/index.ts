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
export {
  PRODUCTION_EXAMPLE,
  PUBLIC_SITES,
  publicSites,
  renderNginxConfig,
  UPSTREAM_HEADER,
  type NginxOptions,
  type NginxSite,
} from './nginx.ts';
export {
  nginxBinary,
  startLoadBalancer,
  startNginx,
  type LoadBalancer,
  type RunningNginx,
} from './nginx-process.ts';
export { partEnv } from './service-env.ts';
export { startCluster as startPostgres, type Cluster as PostgresCluster } from './postgres.ts';
export { startProcessCluster, type ClusterOptions, type RunningCluster } from './system.ts';
