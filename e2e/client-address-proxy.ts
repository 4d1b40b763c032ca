import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A browser's own client address for the journeys: a small forward proxy that opens every
 * upstream connection from one loopback address (127.0.0.2, 127.0.0.3, …; all of 127.0.0.0/8 is
 * this machine). A browser context that uses it reaches the system as that address:
 * - on one process the services read it from the connection (they trust no proxy);
 * - on the cluster the load balancer writes it as `X-Forwarded-For` and the services trust that
 *   one hop (the balancer replaces whatever the client wrote there).
 * So the address is the one the system derives itself, never a header the test chose.
 */
export interface ClientAddressProxy {
  /** For Playwright's `newContext({ proxy })` (loopback is proxied too). */
  proxy: { server: string; bypass: string };
  address: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive']);

export async function startClientAddressProxy(localAddress: string): Promise<ClientAddressProxy> {
  const upstreamHost = (host: string) => (host === 'localhost' ? '127.0.0.1' : host);
  const server = http.createServer((req, res) => {
    const target = URL.parse(req.url ?? '');
    if (!target || target.protocol !== 'http:') {
      res.writeHead(400).end();
      return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())),
    );
    const upstream = http.request(
      {
        host: upstreamHost(target.hostname),
        port: Number(target.port || 80),
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers,
        localAddress,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  // Tunnels (event streams, web sockets over CONNECT) leave from the same address.
  server.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
    const [host = '', port = '80'] = (req.url ?? '').split(':');
    const upstream = net.connect({ host: upstreamHost(host), port: Number(port), localAddress }, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    proxy: { server: `http://127.0.0.1:${port}`, bypass: '<-loopback>' },
    address: localAddress,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
