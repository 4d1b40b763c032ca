import { createServer } from 'node:net';

/** Whether `port` can be bound on loopback right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `count` distinct ports, free a moment ago, for processes a test starts itself. They are taken at
 * random from 15000–23999, below the range the system hands out for port 0 (32768 and up on Linux):
 * a port from `freePort()` is only free until another test's server asks for port 0 and may be
 * given the same number before the process it was meant for has bound it. (14000–14540 and
 * 24000–24540 are the browser journeys' own ranges.)
 */
export async function freePortsApart(count: number): Promise<number[]> {
  const chosen = new Set<number>();
  for (let tries = 0; chosen.size < count; tries++) {
    if (tries > count * 50) throw new Error('no free ports in 15000–23999');
    const port = 15_000 + Math.floor(Math.random() * 9_000);
    if (!chosen.has(port) && (await bindable(port))) chosen.add(port);
  }
  return [...chosen];
}
