import { freePort } from '@acme/test-kit/free-port';
import { USUAL_PORTS, type Listener, type Ports } from '@acme/cluster/system';

/** A free port for every listener, so that nothing in a test touches `npm start`'s ports. */
export async function freePorts(): Promise<Ports> {
  const out = {} as Ports;
  for (const name of Object.keys(USUAL_PORTS) as Listener[]) out[name] = await freePort();
  return out;
}
