import { createServer } from 'node:net';

/**
 * Ports for processes and servers a test starts itself. Test files run side by side in several
 * worker processes of several `npm test` stages at once, and a port checked free is only free until
 * its server binds it: two pickers drawing at random from one range collided so (EADDRINUSE in two
 * fresh-clone runs). Here each worker of each stage draws in turn from its own slice of 15000–23999,
 * below the range the system hands out for port 0 (32768 and up on Linux), so no other picker and no
 * `listen(0)` can be handed the same number. (14000–14540 and 24000–24540 are the browser journeys'
 * own fixed ranges, outside it.)
 */
const LOW = 15_000;
const SIZE = 9_000;
/** `npm test` gives each stage a slot (`TEST_PORT_SLOT`, 0–5); workers of one stage split its share. */
const STAGES = 6;
const WORKERS = 4;
const SLICE = Math.floor(SIZE / (STAGES * WORKERS));

function sliceStart(): number {
  const stage = Number(process.env.TEST_PORT_SLOT);
  const slot = Number.isInteger(stage) && stage >= 0 && stage < STAGES ? stage : STAGES - 1;
  const worker = ((Number(process.env.VITEST_POOL_ID) || 1) - 1) % WORKERS;
  return LOW + (slot * WORKERS + worker) * SLICE;
}

/** Where in this process's slice the next pick starts: a port is handed out again only after every other one of the slice. */
let next = Math.floor(Math.random() * SLICE);

/** Whether `port` can be bound on loopback right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` distinct ports of this process's slice, each free a moment ago. */
export async function freePortsApart(count: number): Promise<number[]> {
  const start = sliceStart();
  const chosen: number[] = [];
  for (let tries = 0; chosen.length < count; tries++) {
    if (tries >= SLICE) throw new Error(`no ${count} free ports in ${start}–${start + SLICE - 1}`);
    const port = start + (next++ % SLICE);
    if (!chosen.includes(port) && (await bindable(port))) chosen.push(port);
  }
  return chosen;
}
