import { BlockList, isIP } from 'node:net';
import { z } from 'zod';

/**
 * Which proxies in front of a service are trusted to tell the client's address
 * (`TRUST_PROXY`, the same name in every service), in the forms Fastify's
 * `trustProxy` takes:
 *
 * - `false` (default, also `0` or empty): no proxy; the client is the connection's peer.
 * - a number of hops `n` (1–10): the `n` nearest proxies are trusted, so the client is the
 *   `n`-th address from the right of `X-Forwarded-For` (1: the address the one load balancer
 *   in front wrote). Addresses further left were written by the client and are ignored.
 * - a comma-separated list of proxy addresses or CIDR ranges (`10.0.0.0/8,192.0.2.7`): the
 *   client is the right-most address of the connection + `X-Forwarded-For` chain that is not
 *   one of them.
 *
 * `true` is refused: it used to mean "trust the left-most `X-Forwarded-For` entry", which the
 * client writes itself, so every per-IP limit could be reset with a header.
 */
export type TrustProxy = false | number | string[];

/** The most hops a hop count may name. */
export const MAX_PROXY_HOPS = 10;

function validAddressOrRange(entry: string): boolean {
  const slash = entry.indexOf('/');
  if (slash === -1) return isIP(entry) !== 0;
  const address = entry.slice(0, slash);
  const prefix = entry.slice(slash + 1);
  const family = isIP(address);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** The proxy trust setting from its env value (see {@link TrustProxy}). */
export const trustProxySchema = z
  .string()
  .default('false')
  .transform((raw, ctx): TrustProxy => {
    const value = raw.trim().toLowerCase();
    if (value === '' || value === 'false' || value === '0') return false;
    if (value === 'true') {
      ctx.addIssue({
        code: 'custom',
        message:
          'true is no longer accepted (it trusted an address the client writes): give the number of proxies in front (e.g. 1) or their addresses/CIDR ranges',
      });
      return z.NEVER;
    }
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops > MAX_PROXY_HOPS) {
        ctx.addIssue({ code: 'custom', message: `at most ${MAX_PROXY_HOPS} proxy hops` });
        return z.NEVER;
      }
      return hops;
    }
    const entries = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = entries.find((e) => !validAddressOrRange(e));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `not a hop count, an IP address or a CIDR range: ${bad}`,
      });
      return z.NEVER;
    }
    return entries;
  })
  .describe(
    "Proxies trusted to tell the client's address in X-Forwarded-For: false (none), a hop count (1 behind one load balancer) or their addresses/CIDR ranges; true is refused.",
  );

/** `::ffff:192.0.2.1` → `192.0.2.1`, so IPv4 ranges match IPv4 peers of a dual-stack socket. */
function plain(address: string): string {
  const a = address.trim().replace(/^\[|\]$/g, '');
  return /^::ffff:\d{1,3}(\.\d{1,3}){3}$/i.test(a) ? a.slice(7) : a;
}

/**
 * The trust function Fastify's `trustProxy` and {@link clientAddress} use: is the address at
 * `hop` (0: the connection's peer, 1: the right-most `X-Forwarded-For` entry, …) a trusted proxy?
 */
export function proxyTrust(setting: TrustProxy): (address: string, hop: number) => boolean {
  if (setting === false) return () => false;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  const list = new BlockList();
  for (const entry of setting) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return (address) => {
    const a = plain(address);
    const family = isIP(a);
    if (family === 0) return false;
    return list.check(a, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/**
 * The client's address: walks from the connection's peer leftwards through `X-Forwarded-For`
 * while each address is a trusted proxy, and answers the first one that is not (or the last).
 * The same rule as Fastify's `request.ip` with {@link proxyTrust}.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trust: (address: string, hop: number) => boolean,
): string {
  const chain = [plain(peer ?? '')];
  const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? '');
  if (header) chain.push(...header.split(',').map(plain).filter(Boolean).reverse());
  for (let hop = 0; hop < chain.length - 1; hop++) {
    if (!trust(chain[hop]!, hop)) return chain[hop]!;
  }
  return chain[chain.length - 1]!;
}
