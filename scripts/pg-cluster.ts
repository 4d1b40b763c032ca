// A throwaway PostgreSQL cluster for trying the system on a real server by hand:
//   npm run pg:cluster   → prints DATABASE_URL; Ctrl+C stops and removes the cluster.
import { startCluster } from '@acme/cluster/postgres';

const cluster = await startCluster();
console.log(`PostgreSQL is running. In another terminal:\n\n  DATABASE_URL=${cluster.url} npm start\n`);
const stop = () => {
  cluster.stop();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
setInterval(() => {}, 60_000);
