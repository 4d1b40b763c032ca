import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Result } from 'autocannon';
import { runLoadChild } from './load/child.ts';
import { summarise } from './summarise.ts';

/** A bare Node `http` server answering a small JSON body: the ceiling for this machine. */
export async function benchCeiling(opts: { durationSec: number; connections: number }) {
  const body = JSON.stringify({ ok: true });
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const result = await runLoadChild<Result>('autocannon', {
      url: `http://127.0.0.1:${port}/`,
      connections: opts.connections,
      duration: opts.durationSec,
    });
    return { bareNodeHttp: summarise(result) };
  } finally {
    server.close();
  }
}
