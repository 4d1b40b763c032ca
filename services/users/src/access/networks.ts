import { BlockList, isIP } from 'node:net';
import type { Kysely, Transaction } from 'kysely';
import type { UsersDb } from '../db-types.ts';
import { AppError } from '../http/errors.ts';

/**
 * Trusted networks (issue 24, ManageIPWhitelist): an organisation's allow-list of CIDR ranges.
 * When it is set, its members are refused outside it at every sign-in (password, SSO, Microsoft
 * 365), every refresh and every API client's token request. The address checked is the one the
 * service derived through its trusted proxies (`TRUST_PROXY` and its siblings), never a value a
 * client appended to `X-Forwarded-For`.
 */

/** The message every refusal carries (the app shows its own copy for the error code). */
const NETWORK_NOT_TRUSTED_MESSAGE =
  "Your organisation allows sign-in only from its trusted networks, and you are outside them. Connect from your organisation's network, or ask its administrator.";

/**
 * IPv4-mapped IPv6 (`::ffff:0:0/96`) is the IPv4 address it carries, whatever its spelling
 * (`::ffff:192.0.2.1`, `0:0:0:0:0:ffff:c000:201`): a dual-stack socket reports IPv4 clients so, and
 * they are checked against the IPv4 ranges only. Any other address is returned as it came.
 */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  // The URL parser writes an IPv6 address in one canonical form (a mapped one as two hex groups).
  const host = URL.parse(`http://[${address}]/`)?.hostname ?? '';
  const mapped = /^\[::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(host);
  if (!mapped) return address;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** A client address as checked: brackets gone, IPv4-mapped IPv6 as its IPv4 address. */
function plainAddress(address: string): string {
  return unmapped(address.trim().replace(/^\[|\]$/g, ''));
}

/**
 * A CIDR range in canonical text, or null when it is not one. A bare address is its own range
 * (/32 or /128). The prefix is 0–32 (IPv4) or 0–128 (IPv6); host bits may be set (the range is
 * the network they belong to). A range inside the IPv4-mapped block (`::ffff:a.b.c.d/96` to
 * `/128`) is written as the IPv4 range it stands for (`::ffff:10.0.0.0/104` is `10.0.0.0/8`). An
 * IPv6 range wider than that block (`::/0`, `::/64`, `::ffff:0:0/95`) admits IPv6 clients only:
 * IPv4 clients are checked against the IPv4 ranges alone, so `::/0` never lets every IPv4
 * address in.
 */
export function parseRange(text: string): string | null {
  const value = text.trim().toLowerCase();
  if (value.length === 0 || value.length > 64) return null;
  const slash = value.indexOf('/');
  const address = slash === -1 ? value : value.slice(0, slash);
  const prefix = slash === -1 ? '' : value.slice(slash + 1);
  const family = isIP(address);
  if (family === 0) return null;
  const max = family === 4 ? 32 : 128;
  if (slash !== -1 && !/^\d{1,3}$/.test(prefix)) return null;
  const bits = slash === -1 ? max : Number(prefix);
  if (bits > max) return null;
  const v4 = family === 6 && bits >= 96 ? unmapped(address) : address;
  if (v4 !== address) return `${v4}/${bits - 96}`;
  return `${address}/${bits}`;
}

/**
 * Whether `address` lies in one of `ranges` (canonical ranges from {@link parseRange}; older
 * stored lists are read through it again). An IPv4 client is matched against the IPv4 ranges and
 * an IPv6 client against the IPv6 ranges, never across (Node's BlockList alone would match IPv4
 * addresses against IPv6 rules through their mapped form, so `::/0` would admit every IPv4 client).
 */
export function addressInRanges(address: string, ranges: readonly string[]): boolean {
  const a = plainAddress(address);
  const family = isIP(a);
  if (family === 0) return false;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  for (const stored of ranges) {
    const range = parseRange(stored);
    if (range === null) continue;
    const [net, bits] = range.split('/') as [string, string];
    if (isIP(net) === family) list.addSubnet(net, Number(bits), type);
  }
  return list.check(a, type);
}

type Db = Kysely<UsersDb> | Transaction<UsersDb>;

export async function readTrustedNetworks(
  db: Db,
  organisationId: string,
): Promise<{ ranges: string[]; updatedAt: Date | null }> {
  const row = await db
    .selectFrom('organisation_trusted_networks')
    .select(['ranges', 'updated_at'])
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  return { ranges: row?.ranges ?? [], updatedAt: row?.updated_at ?? null };
}

export async function writeTrustedNetworks(
  db: Db,
  organisationId: string,
  ranges: readonly string[],
  actorId: string | null,
  now: Date,
): Promise<void> {
  const values = {
    organisation_id: organisationId,
    ranges: JSON.stringify(ranges),
    updated_at: now,
    updated_by: actorId,
  };
  await db
    .insertInto('organisation_trusted_networks')
    .values(values)
    .onConflict((oc) =>
      oc.column('organisation_id').doUpdateSet({
        ranges: values.ranges,
        updated_at: values.updated_at,
        updated_by: values.updated_by,
      }),
    )
    .execute();
}

/**
 * 403 `NETWORK_NOT_TRUSTED` when the organisation has trusted networks and `clientAddress` is
 * outside them, or unknown (a caller that could not say where the request came from is refused).
 */
export async function requireTrustedNetwork(
  db: Db,
  organisationId: string,
  clientAddress: string | undefined,
): Promise<void> {
  const { ranges } = await readTrustedNetworks(db, organisationId);
  if (ranges.length === 0) return;
  if (clientAddress !== undefined && addressInRanges(clientAddress, ranges)) return;
  throw new AppError('NETWORK_NOT_TRUSTED', NETWORK_NOT_TRUSTED_MESSAGE);
}
