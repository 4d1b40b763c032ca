import { freePortsApart } from '@acme/cluster/free-ports';

/** A TCP port that was free on loopback a moment ago, from this test process's own slice (`freePortsApart`). */
export async function freePort(): Promise<number> {
  const [port] = await freePortsApart(1);
  return port!;
}
