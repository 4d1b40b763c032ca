import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchOnceMore } from '@acme/service-kit/once-more';
import { startLoadBalancer, type LoadBalancer } from './nginx-process.ts';

// A rolling restart reloads the load balancer twice per instance (out of rotation, back in). Each
// reload's old nginx workers close their idle kept-alive connections from the services calling each
// other through it; a call written on one at that moment fails before any answer (Node's fetch does
// not resend, a browser does). Measured here with plain fetch: about two failed calls per reload
// with 16 callers. The services' calls to each other are sent once more on such a failure.

const CALLERS = 16;
const RELOADS = 15;

const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"redirect_to":"https://app.test/"}');
  });
});
let lb: LoadBalancer;
afterAll(async () => {
  await lb?.close();
  await new Promise((done) => server.close(done));
});

describe('the load balancer reloading under service-to-service calls', () => {
  it('rolling restart: no kept-alive call through nginx fails while it reloads again and again', async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const instance = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    lb = await startLoadBalancer([`http://${instance}`]);
    const options = {
      sites: [{ name: 'instances', port: lb.port, servers: [instance] }],
      workerProcesses: 1,
      accessLog: false as const,
    };
    let reloads = 0;
    const failures: string[] = [];
    let answered = 0;
    const caller = async () => {
      while (reloads < RELOADS) {
        // As the identity service accepts a login request: a PUT on a kept-alive connection.
        const signal = AbortSignal.timeout(10_000);
        try {
          const send = () =>
            fetch(`${lb.url}/admin/oauth2/auth/requests/login/accept?login_challenge=c`, {
              method: 'PUT',
              headers: { 'content-type': 'application/json' },
              body: '{"subject":"s"}',
              signal,
            });
          const res = await fetchOnceMore(send, signal);
          expect(res.status).toBe(200);
          await res.text();
          answered++;
        } catch (error) {
          failures.push(String((error as Error).cause ?? error));
        }
      }
    };
    const reloading = (async () => {
      while (reloads < RELOADS) {
        await lb.reload(options);
        reloads++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    await Promise.all([reloading, ...Array.from({ length: CALLERS }, caller)]);
    expect(failures).toEqual([]);
    expect(answered).toBeGreaterThan(RELOADS * CALLERS);
  }, 60_000);
});
