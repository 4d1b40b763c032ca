// Load child: POSTs every given form body once to `url`, over `connections` keep-alive
// connections, and prints each request's latency with the counts of non-2xx answers and errors.
import { Agent, request } from 'node:http';
import { readInput } from './child.ts';

const { url, path, bodies, connections } = await readInput<{
  url: string;
  path: string;
  bodies: string[];
  connections: number;
}>();
const { hostname, port } = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: connections });
const latencies: number[] = [];
let non2xx = 0;
let errors = 0;
let next = 0;
const send = (body: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(
      {
        agent,
        hostname,
        port,
        method: 'POST',
        path,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
const worker = async () => {
  while (next < bodies.length) {
    const body = bodies[next++]!;
    const t0 = performance.now();
    try {
      const status = await send(body);
      if (status < 200 || status >= 300) non2xx += 1;
    } catch {
      errors += 1;
    }
    latencies.push(performance.now() - t0);
  }
};
const started = performance.now();
await Promise.all(Array.from({ length: Math.min(connections, bodies.length) }, worker));
const seconds = (performance.now() - started) / 1000;
agent.destroy();
console.log(JSON.stringify({ latencies, non2xx, errors, seconds }));
