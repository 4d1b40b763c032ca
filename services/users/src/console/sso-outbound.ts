import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupAll } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Outbound requests the organisation console makes to an organisation's identity provider (Test
// connection, Test sign-in; also SAML metadata URLs, for the operator and the daily refresh too).
// The URLs come from an org-admin, so each request is guarded against server-side request forgery: https only (plain http only for the configured development hosts),
// no credentials in the URL, no redirects, a time-out, a size limit, and no loopback, private,
// link-local or otherwise special address unless configured for development. The address check
// runs inside the connection's own DNS lookup, so a name can not resolve to a public address for
// the check and to a private one for the connection.

/** Largest JSON answer read (discovery documents and JWKS are a few kB; SAML metadata has its own). */
const SSO_FETCH_MAX_BYTES = 256 * 1024;

export interface OutboundPolicy {
  /** Hosts reachable over plain http (development stand-ins). */
  httpHosts: readonly string[];
  /** Development only: loopback and private addresses may be reached. */
  allowPrivate: boolean;
  timeoutMs: number;
}

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
 * For a URL saved for later (an issuer other services fetch): it must also resolve, now, to public
 * addresses only. Rebinding later is still possible; the console's own requests check at connect time.
 */
export async function checkOutboundHost(raw: string, policy: OutboundPolicy): Promise<URL> {
  const url = checkOutboundUrl(raw, policy);
  if (policy.allowPrivate) return url;
  let addresses: LookupAddress[];
  try {
    addresses = await dnsLookupAll(url.hostname.replace(/^\[|\]$/g, ''), { all: true });
  } catch {
    throw new OutboundError('unreachable');
  }
  if (addresses.some((a) => isSpecialAddress(a.address))) throw new OutboundError('private_address');
  return url;
}

function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const list = addresses;
      if (!policy.allowPrivate && list.some((a) => isSpecialAddress(a.address))) {
        return callback(new OutboundError('private_address'), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

/** GETs (or POSTs a form to) `raw` under the policy and parses the answer as JSON. */
export async function fetchJson(
  raw: string,
  policy: OutboundPolicy,
  init: { form?: URLSearchParams; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown }> {
  const answer = await fetchBody(raw, policy, {
    ...init,
    accept: 'application/json',
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
  const answer = await fetchBody(raw, policy, options);
  if (answer.status !== 200) throw new OutboundError('http_status', answer.status);
  return answer.body.toString('utf8');
}

async function fetchBody(
  raw: string,
  policy: OutboundPolicy,
  init: { form?: URLSearchParams; headers?: Record<string, string>; accept: string; maxBytes: number },
): Promise<{ status: number; body: Buffer }> {
  const url = checkOutboundUrl(raw, policy);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = init.form?.toString();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: body === undefined ? 'GET' : 'POST',
        lookup: guardedLookup(policy),
        timeout: policy.timeoutMs,
        headers: {
          accept: init.accept,
          ...(body === undefined
            ? {}
            : {
                'content-type': 'application/x-www-form-urlencoded',
                'content-length': String(Buffer.byteLength(body)),
              }),
          ...init.headers,
        },
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          reject(new OutboundError('redirect', status));
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
        res.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
      },
    );
    // One deadline for the whole exchange, not only for idle sockets.
    const deadline = setTimeout(() => req.destroy(new OutboundError('timeout')), policy.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new OutboundError('timeout')));
    req.on('error', (error) =>
      reject(error instanceof OutboundError ? error : new OutboundError('unreachable')),
    );
    req.end(body);
  });
}
