import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Outbound requests to a URL an organisation's admin named: its identity provider's discovery
// document, token endpoint, JWKS and userinfo (the console's Test connection and Test sign-in, the
// identity service's sign-in), and SAML metadata URLs. Each request is guarded against server-side
// request forgery: https only (plain http only for the configured development hosts), no credentials
// in the URL, no redirects, a time-out, a size limit, and no loopback, private, link-local or
// otherwise special address unless configured for development. The address check runs inside the
// connection's own DNS lookup and the connection is made to an address it checked, so a name can not
// resolve to a public address for the check and to a private one for the connection (DNS rebinding).

/** Largest JSON answer read (discovery documents and JWKS are a few kB; SAML metadata has its own). */
const SSO_FETCH_MAX_BYTES = 256 * 1024;

/** Every address of a host name (node's resolver: `dns.lookup` with `all`). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export interface OutboundPolicy {
  /** Hosts reachable over plain http (development stand-ins). */
  httpHosts: readonly string[];
  /** Development only: loopback and private addresses may be reached. */
  allowPrivate: boolean;
  timeoutMs: number;
  /** The resolver (node's unless given: a test's DNS that answers what it is told). */
  resolve?: Resolve;
}

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true });

/** Why a request was not made or gave nothing usable: words for the console come from the app's copy. */
export type OutboundFailure =
  | 'invalid_url'
  | 'not_https'
  | 'private_address'
  | 'unreachable'
  | 'timeout'
  | 'too_large'
  | 'redirect'
  | 'http_status'
  | 'not_json';

export class OutboundError extends Error {
  readonly reason: OutboundFailure;
  readonly status: number | undefined;
  constructor(reason: OutboundFailure, status?: number) {
    super(`outbound: ${reason}${status ? ` ${status}` : ''}`);
    this.reason = reason;
    this.status = status;
  }
}

const special = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  special.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  special.addSubnet(net, prefix, 'ipv6');
}

/** Loopback, private, link-local, shared, multicast or reserved (IPv4-mapped IPv6 included). */
export function isSpecialAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return special.check(mapped[1]!, 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return special.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL, if the policy lets the console reach it (before any DNS lookup). */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url');
  }
  if (url.username || url.password || url.hash) throw new OutboundError('invalid_url');
  const host = url.hostname.toLowerCase();
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.httpHosts.includes(host))) {
    throw new OutboundError('not_https');
  }
  const literal = host.replace(/^\[|\]$/g, '');
  if (!policy.allowPrivate && isIP(literal) !== 0 && isSpecialAddress(literal)) {
    throw new OutboundError('private_address');
  }
  return url;
}

/**
 * The addresses of `hostname` the policy lets a request connect to: every one the resolver answers,
 * each checked (one special address refuses the name: the resolver may answer in any order).
 */
async function checkedAddresses(hostname: string, policy: OutboundPolicy): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(hostname);
  } catch {
    throw new OutboundError('unreachable');
  }
  if (addresses.length === 0) throw new OutboundError('unreachable');
  if (!policy.allowPrivate && addresses.some((a) => isSpecialAddress(a.address))) {
    throw new OutboundError('private_address');
  }
  return addresses;
}

/**
 * For a URL saved for later (an issuer the identity service fetches at sign-in): it must also
 * resolve, now, to public addresses only, so a mistake is said when it is made. The requests made
 * later check again at connection time, so a name that rebinds after this check reaches nothing.
 */
export async function checkOutboundHost(raw: string, policy: OutboundPolicy): Promise<URL> {
  const url = checkOutboundUrl(raw, policy);
  if (policy.allowPrivate) return url;
  await checkedAddresses(url.hostname.replace(/^\[|\]$/g, ''), policy);
  return url;
}

/**
 * The connection's DNS lookup: resolves, checks every address, and hands the socket only addresses
 * it checked (node connects to what its lookup answers, so there is no second resolution to rebind).
 */
function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, policy).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const list = family ? addresses.filter((a) => a.family === family) : addresses;
        if (list.length === 0) return callback(new OutboundError('unreachable'), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        return callback(null, list[0]!.address, list[0]!.family);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
}

/** GETs (or POSTs a form to) `raw` under the policy and parses the answer as JSON. */
export async function fetchJson(
  raw: string,
  policy: OutboundPolicy,
  init: { form?: URLSearchParams; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const form = init.form?.toString();
  const answer = await fetchBody(raw, policy, {
    method: form === undefined ? 'GET' : 'POST',
    body: form,
    headers: {
      accept: 'application/json',
      ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      ...init.headers,
    },
    maxBytes: SSO_FETCH_MAX_BYTES,
  });
  try {
    return { status: answer.status, body: JSON.parse(answer.body.toString('utf8')) };
  } catch {
    throw new OutboundError(answer.status >= 400 ? 'http_status' : 'not_json', answer.status);
  }
}

/**
 * GETs a text document (SAML IdP metadata) under the policy, at most `maxBytes`; a status other than
 * 200 is an `http_status` failure.
 */
export async function fetchText(
  raw: string,
  policy: OutboundPolicy,
  options: { accept: string; maxBytes: number },
): Promise<string> {
  const answer = await fetchBody(raw, policy, {
    method: 'GET',
    headers: { accept: options.accept },
    maxBytes: options.maxBytes,
  });
  if (answer.status !== 200) throw new OutboundError('http_status', answer.status);
  return answer.body.toString('utf8');
}

/** What a library's own HTTP calls pass to `fetch` (openid-client's `customFetch`). */
interface FetchInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | URLSearchParams | Uint8Array | ArrayBuffer | ReadableStream | null;
  signal?: AbortSignal | null;
}

/**
 * A `fetch` for a library that makes its own calls to an identity provider (openid-client's
 * `customFetch`): every call under the policy, answers of at most 256 KiB, a redirect refused.
 */
export function outboundFetch(policy: OutboundPolicy) {
  return async (url: string | URL, init: FetchInit = {}): Promise<Response> => {
    const raw = init.body;
    if (raw instanceof ReadableStream) throw new OutboundError('invalid_url');
    const body =
      raw === null || raw === undefined
        ? undefined
        : typeof raw === 'string' || raw instanceof URLSearchParams
          ? raw.toString()
          : Buffer.from(raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw);
    const headers: Record<string, string> = {};
    new Headers(init.headers ?? {}).forEach((value, name) => {
      headers[name] = value;
    });
    const answer = await fetchBody(String(url), policy, {
      method: init.method ?? 'GET',
      headers,
      body,
      signal: init.signal ?? undefined,
      maxBytes: SSO_FETCH_MAX_BYTES,
    });
    const received = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
        received.append(name, v);
    }
    const empty = answer.status === 204 || answer.status === 304;
    return new Response(empty ? null : new Uint8Array(answer.body), {
      status: answer.status,
      headers: received,
    });
  };
}

/**
 * POSTs `body` to `raw` under the policy (a webhook to an organisation's receiver) and answers the
 * receiver's status once its headers arrive; the answer's body is not read. A 3xx is a `redirect`
 * failure, as everywhere here.
 */
export async function postOutbound(
  raw: string,
  policy: OutboundPolicy,
  init: { headers: Record<string, string>; body: string },
): Promise<number> {
  const answer = await fetchBody(raw, policy, { method: 'POST', ...init, maxBytes: 0 });
  return answer.status;
}

async function fetchBody(
  raw: string,
  policy: OutboundPolicy,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string | Buffer | undefined;
    signal?: AbortSignal | undefined;
    /** 0: answer with the status alone, the body left unread. */
    maxBytes: number;
  },
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  const url = checkOutboundUrl(raw, policy);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const { body } = init;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: init.method,
        // A connection of its own, never one from the shared pool: a pooled socket is reused without
        // a lookup, so it would skip this request's check (made under another policy, or another name).
        agent: false,
        lookup: guardedLookup(policy),
        timeout: policy.timeoutMs,
        headers: {
          ...init.headers,
          ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          reject(new OutboundError('redirect', status));
          return;
        }
        if (init.maxBytes === 0) {
          res.destroy();
          resolve({ status, headers: res.headers, body: Buffer.alloc(0) });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > init.maxBytes) {
            res.destroy();
            reject(new OutboundError('too_large'));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', () => reject(new OutboundError('unreachable')));
        res.on('end', () => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    // One deadline for the whole exchange, not only for idle sockets; the caller's signal ends it too.
    const stop = () => req.destroy(new OutboundError('timeout'));
    const deadline = setTimeout(stop, policy.timeoutMs);
    if (init.signal?.aborted) stop();
    init.signal?.addEventListener('abort', stop, { once: true });
    req.on('close', () => {
      clearTimeout(deadline);
      init.signal?.removeEventListener('abort', stop);
    });
    req.on('timeout', stop);
    req.on('error', (error) =>
      reject(error instanceof OutboundError ? error : new OutboundError('unreachable')),
    );
    req.end(body);
  });
}
