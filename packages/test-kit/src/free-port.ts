import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The first port of the kernel's ephemeral range (what `listen(0)` hands out); Linux's default. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 3000 ? low : 32768;
  } catch {
    return 32768;
  }
}

function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : null));
    });
  });
}

/**
 * A TCP port that was free on loopback a moment ago. Chosen at random just below the kernel's
 * ephemeral range: a port handed out by `listen(0)` is never one a test picked here a moment ago and
 * is about to bind (seen as EADDRINUSE when another server of the same test, or of a test file in the
 * same worker, started on port 0 in between). Falls back to an ephemeral port.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralLow();
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenOnce(below - 1 - Math.floor(Math.random() * 2500));
    if (port !== null) return port;
  }
  const port = await listenOnce(0);
  if (port === null) throw new Error('no free port');
  return port;
}
