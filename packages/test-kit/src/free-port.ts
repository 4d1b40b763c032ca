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
 * This process's share of the 2,500 ports below the ephemeral range. Test files run side by side in
 * several worker processes, and the PGlite and PostgreSQL stages at the same time: each worker of each
 * stage picks from its own slice, so two of them never pick the same port between its check and its
 * bind (a fresh-clone run failed so with EADDRINUSE when all picked at random from the whole range).
 */
function slice(below: number): { start: number; size: number } {
  const slots = 8;
  const size = Math.floor(2500 / slots);
  const worker = (Number(process.env.VITEST_POOL_ID) || 1) - 1;
  const stage = process.env.TEST_DB === 'postgres' ? 1 : 0;
  const index = stage * (slots / 2) + (worker % (slots / 2));
  return { start: below - 2500 + index * size, size };
}

/** Where in this process's slice the next pick starts: each port is handed out again only after every other one of the slice. */
let next = Math.floor(Math.random() * 1000);

/**
 * A TCP port that was free on loopback a moment ago. Chosen just below the kernel's ephemeral range,
 * in turn within this process's slice (above): a port handed out by `listen(0)` is never one a test
 * picked here a moment ago and is about to bind. Falls back to an ephemeral port.
 */
export async function freePort(): Promise<number> {
  const { start, size } = slice(ephemeralLow());
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await listenOnce(start + (next++ % size));
    if (port !== null) return port;
  }
  const port = await listenOnce(0);
  if (port === null) throw new Error('no free port');
  return port;
}
