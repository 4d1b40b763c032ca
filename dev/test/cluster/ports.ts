import { freePortsApart } from '@acme/cluster/free-ports';
import { USUAL_PORTS, type Listener, type Ports } from '@acme/system-shape';

/**
 * A distinct free port for every listener, so that nothing in a test touches `npm start`'s ports,
 * taken apart from the ports the system gives servers that listen on port 0 (other test files,
 * running at the same time, start those).
 */
export async function freePorts(): Promise<Ports> {
  const names = Object.keys(USUAL_PORTS) as Listener[];
  const ports = await freePortsApart(names.length);
  return Object.fromEntries(names.map((name, i) => [name, ports[i]!])) as Ports;
}
