import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';

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

/** Connection-level (hop-by-hop) headers: they describe one connection and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  // Node answers `Expect: 100-continue` itself before the request handler runs.
  'expect',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);
/** Headers a client could write to pose as the proxy: dropped (X-Forwarded-For is replaced). */
const CLIENT_FORWARDED = new Set(['x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port']);
/** How long an idle kept-alive connection to an instance is kept, and how long a request may take. */
const KEEP_ALIVE_MS = 30_000;
const UPSTREAM_TIMEOUT_MS = 60_000;
/** Connections per instance: enough for a browser journey's parallel requests and a load test. */
const CONNECTIONS_PER_INSTANCE = 64;
/** After a failed connection an instance is skipped (while another is up) for this long. */
const DOWN_FOR_MS = 2_000;

/** The headers to send on: hop-by-hop ones (and those the `Connection` header names) dropped. */
function forwardHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const named = new Set(
    String(req.headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name) || CLIENT_FORWARDED.has(name))
      continue;
    out[name] = value;
  }
  // The address of the connection, replacing whatever the client wrote: the services trust 1 hop.
  out['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  return out;
}

function badGateway(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(502, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ error: { code: 502, status: 'Bad Gateway', message: 'upstream unavailable' } }));
}

interface Upstream {
  url: string;
  host: string;
  pool: Pool;
  /** Until when (ms since epoch) the instance is skipped after a connection failure. */
  downUntil: number;
}

/** A failure to reach the instance at all (as opposed to one in the middle of its answer). */
function isConnectFailure(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'EHOSTUNREACH';
}

/**
 * A reverse proxy in front of the instances of one listener: each request goes to the next
 * instance in turn, over a pool of kept-alive connections per instance (undici), with request and
 * response bodies streamed through. The `Host` header is passed on unchanged, so a service sees the
 * browser-facing host it is configured with (cookies, admin Host checks). `X-Forwarded-For` is set
 * to the connection's address, replacing whatever the client sent (a client-written value is never
 * passed on, so the services trust exactly 1 hop), and a client's `X-Forwarded-Host`/`-Proto`/`-Port`
 * are dropped. An instance that refuses the connection gets a 502 for that request (no retry: a
 * POST must not be sent twice) and is then skipped for {@link DOWN_FOR_MS} while another is up.
 */
export async function startRoundRobinProxy(options: RoundRobinProxyOptions): Promise<RoundRobinProxy> {
  if (options.targets.length === 0) throw new Error('a proxy needs at least one target');
  const upstreams: Upstream[] = options.targets.map((url) => ({
    url,
    host: new URL(url).host,
    pool: new Pool(new URL(url).origin, {
      connections: CONNECTIONS_PER_INSTANCE,
      keepAliveTimeout: KEEP_ALIVE_MS,
      headersTimeout: UPSTREAM_TIMEOUT_MS,
      bodyTimeout: UPSTREAM_TIMEOUT_MS,
    }),
    downUntil: 0,
  }));
  let next = 0;
  const pick = (): Upstream => {
    const now = Date.now();
    for (let tried = 0; tried < upstreams.length; tried++) {
      const candidate = upstreams[next % upstreams.length]!;
      next += 1;
      if (candidate.downUntil <= now) return candidate;
    }
    // Every instance failed lately: try them in turn anyway (one may be back).
    const fallback = upstreams[next % upstreams.length]!;
    next += 1;
    return fallback;
  };

  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const upstream = pick();
    const hasBody =
      req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const abort = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    let answer;
    try {
      answer = await upstream.pool.request({
        method: req.method as 'GET',
        path: req.url ?? '/',
        headers: forwardHeaders(req),
        body: hasBody ? req : null,
        signal: abort.signal,
      });
    } catch (error) {
      if (isConnectFailure(error)) upstream.downUntil = Date.now() + DOWN_FOR_MS;
      badGateway(res);
      return;
    }
    upstream.downUntil = 0;
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    headers[UPSTREAM_HEADER] = upstream.host;
    res.writeHead(answer.statusCode, headers);
    try {
      await pipeline(answer.body, res);
    } catch {
      res.destroy();
    }
  };

  const server: Server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) => {
    void forward(req, res);
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
      await closed;
      await Promise.all(upstreams.map((u) => u.pool.close()));
    },
  };
}
