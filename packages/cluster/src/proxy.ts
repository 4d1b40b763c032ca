import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';

/** Response header naming the instance (`host:port`) that answered a request through the proxy. */
export const UPSTREAM_HEADER = 'x-upstream-instance';

export interface RoundRobinProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface RoundRobinProxyOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  host?: string;
  /** The instances' base URLs, e.g. `http://127.0.0.1:41234`; requests go to each in turn. */
  targets: string[];
}

/**
 * A reverse proxy in front of the instances of one listener: each request goes to the next
 * instance in turn (http-proxy does the proxying). The `Host` header is passed on unchanged, so
 * a service sees the browser-facing host it is configured with (cookies, admin Host checks).
 * `X-Forwarded-For` is set to the connection's address, replacing whatever the client sent (a
 * client-written value is never passed on, so the services trust exactly 1 hop), and a client's
 * `X-Forwarded-Host`/`-Proto`/`-Port` are dropped. An instance that refuses the connection gets a 502
 * for that request (no retry: a POST must not be sent twice).
 */
export async function startRoundRobinProxy(options: RoundRobinProxyOptions): Promise<RoundRobinProxy> {
  if (options.targets.length === 0) throw new Error('a proxy needs at least one target');
  const proxy = httpProxy.createProxyServer({ xfwd: false, proxyTimeout: 60_000 });
  let next = 0;
  proxy.on('proxyRes', (proxyRes, req) => {
    const target = (req as { upstream?: string }).upstream;
    if (target) proxyRes.headers[UPSTREAM_HEADER] = new URL(target).host;
  });
  proxy.on('error', (_err, _req, res) => {
    if ('writeHead' in res && !res.headersSent) {
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({ error: { code: 502, status: 'Bad Gateway', message: 'upstream unavailable' } }),
      );
    } else {
      res.destroy();
    }
  });
  const server: Server = createServer((req, res) => {
    const target = options.targets[next % options.targets.length]!;
    next += 1;
    (req as { upstream?: string }).upstream = target;
    delete req.headers['x-forwarded-host'];
    delete req.headers['x-forwarded-proto'];
    delete req.headers['x-forwarded-port'];
    req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
    proxy.web(req, res, { target });
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    port,
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeIdleConnections();
      proxy.close();
      await closed;
    },
  };
}
