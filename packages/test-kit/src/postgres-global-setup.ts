import { startCluster } from '@acme/cluster/postgres';

// Vitest global setup for TEST_DB=postgres: one cluster for the run, removed afterwards.
export default async function setup() {
  const cluster = await startCluster();
  process.env.TEST_DATABASE_URL = cluster.url;
  return () => cluster.stop();
}
