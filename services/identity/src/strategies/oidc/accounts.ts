import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { IdentityDb } from '../../db/schema.ts';
import type { ProviderDirectory, SsoProvider } from './provider-directory.ts';
import { MemberRefused } from './provider-directory.ts';

// Who a provider's claims belong to (Kratos's "registration through OIDC", on our terms):
// 1. the identity already linked to (provider, subject);
// 2. else the identity whose verified address is the (verified) email, which gets linked;
// 3. else the user service's member of the provider's organisation, created just in time unless
//    that is turned off; its identity is created verified (the provider vouches) and linked.

export interface Person {
  subject: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export type PersonResult = { ok: true; person: Person } | { ok: false; reason: 'email' | 'domain' };

const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** Reads the person from validated claims through the provider's claim mapping. */
export function personFromClaims(provider: SsoProvider, claims: Record<string, unknown>): PersonResult {
  const email = str(claims[provider.claimMapping.email])?.toLowerCase();
  const verified = claims[provider.claimMapping.emailVerified];
  const subject = str(claims.sub);
  if (
    !email ||
    !subject ||
    (verified !== true && verified !== 'true') ||
    email.length > 254 ||
    !email.includes('@')
  ) {
    return { ok: false, reason: 'email' };
  }
  // One organisation's provider can only speak for that organisation's addresses.
  if (!provider.domains.includes(email.slice(email.lastIndexOf('@') + 1)))
    return { ok: false, reason: 'domain' };
  const firstName = str(claims[provider.claimMapping.firstName])?.slice(0, 100);
  const lastName = str(claims[provider.claimMapping.lastName])?.slice(0, 100);
  return {
    ok: true,
    person: { subject, email, ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}) },
  };
}

const oidcIdentifier = (provider: string, subject: string) => `${provider}:${subject}`;

export type ResolveResult =
  | { ok: true; identityId: string; created: boolean }
  | { ok: false; reason: 'jit_disabled' | 'refused' | 'inactive'; message?: string };

export async function resolveIdentity(
  db: Kysely<IdentityDb>,
  directory: ProviderDirectory,
  provider: SsoProvider,
  person: Person,
  now: Date,
): Promise<ResolveResult> {
  const identifier = oidcIdentifier(provider.provider, person.subject);
  const linked = await db
    .selectFrom('identity_credential_identifiers')
    .select('identity_id')
    .where('type', '=', 'oidc')
    .where('identifier', '=', identifier)
    .executeTakeFirst();
  let identityId = linked?.identity_id;
  let created = false;
  if (!identityId) {
    const byEmail = await db
      .selectFrom('identity_verifiable_addresses')
      .select('identity_id')
      .where('value', '=', person.email)
      .where('verified', '=', true)
      .executeTakeFirst();
    identityId = byEmail?.identity_id;
  }
  if (!identityId) {
    try {
      const member = await directory.member(provider.provider, {
        email: person.email,
        ...(person.firstName ? { firstName: person.firstName } : {}),
        ...(person.lastName ? { lastName: person.lastName } : {}),
      });
      identityId = member.identityId;
      created = true;
    } catch (error) {
      if (error instanceof MemberRefused) {
        return error.errorCode === 'JIT_DISABLED'
          ? { ok: false, reason: 'jit_disabled', message: error.message }
          : { ok: false, reason: 'refused', message: error.message };
      }
      throw error;
    }
  }
  const identity = await db
    .selectFrom('identity_identities')
    .select('state')
    .where('id', '=', identityId)
    .executeTakeFirst();
  if (identity?.state !== 'active') return { ok: false, reason: 'inactive' };
  if (!linked) await link(db, identityId, provider.provider, person, now);
  return { ok: true, identityId, created };
}

/** Adds the (provider, subject) credential and marks the address verified: the provider vouched for it. */
async function link(db: Kysely<IdentityDb>, identityId: string, provider: string, person: Person, now: Date) {
  await db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('identity_credentials')
      .select(['id', 'config'])
      .where('identity_id', '=', identityId)
      .where('type', '=', 'oidc')
      .executeTakeFirst();
    const providers = [
      ...(
        ((existing?.config as { providers?: unknown[] } | undefined)?.providers ?? []) as {
          provider: string;
          subject: string;
        }[]
      ).filter((p) => p.provider !== provider),
      { provider, subject: person.subject },
    ];
    if (existing) {
      await trx
        .updateTable('identity_credentials')
        .set({ config: JSON.stringify({ providers }), updated_at: now })
        .where('id', '=', existing.id)
        .execute();
    } else {
      await trx
        .insertInto('identity_credentials')
        .values({
          id: randomUUID(),
          identity_id: identityId,
          type: 'oidc',
          config: JSON.stringify({ providers }),
          version: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
    }
    await trx
      .insertInto('identity_credential_identifiers')
      .values({ identifier: oidcIdentifier(provider, person.subject), type: 'oidc', identity_id: identityId })
      .execute();
    await trx
      .updateTable('identity_verifiable_addresses')
      .set({ verified: true, status: 'completed', verified_at: now, updated_at: now })
      .where('identity_id', '=', identityId)
      .where('value', '=', person.email)
      .where('verified', '=', false)
      .execute();
  });
}
