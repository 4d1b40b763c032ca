import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { IdentityContext } from '../../context.ts';
import type { IdentityDb } from '../../db/schema.ts';
import { reclaimUnprovenAccount } from '../../identities/unproven.ts';
import type { UiText } from '@ory/client';
import { catalogue, messages, type MessageKey } from '../../ui/messages.ts';
import type { ProviderDirectory, SsoProvider } from './provider-directory.ts';
import { MemberRefused } from './provider-directory.ts';

// Who a provider's claims belong to (Kratos's "registration through OIDC", on our terms):
// 1. the identity already linked to (the provider's organisation and issuer, subject);
// 2. else the user service's member of the provider's organisation with that (verified) email,
//    created just in time unless that is turned off (its identity is created verified: the provider
//    vouches), which gets linked. An identity with that verified address that is not that member (a
//    user of another organisation) is refused, never linked.

export interface Person {
  subject: string;
  email: string;
  firstName?: string;
  lastName?: string;
  /** The directory groups a SAML IdP named (passed to the user service, which may ignore them). */
  groups?: string[];
}

/**
 * The provider record a link belongs to: its organisation and its issuer (an OIDC issuer, or a SAML
 * IdP's entity id).
 */
export type LinkedProvider = Pick<SsoProvider, 'provider' | 'organisationId' | 'issuer'>;

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

/**
 * A link's key: the provider's own record (its organisation and issuer) and the subject, never the
 * provider id alone. A provider id is a name the user service frees when the provider is removed; if
 * another organisation took it, a key by id would let that organisation's IdP sign in as the first
 * organisation's people. `#` can not occur in an issuer (no fragment), so a key's prefix up to it
 * names exactly one (organisation, issuer).
 */
const oidcIdentifier = (provider: Pick<SsoProvider, 'organisationId' | 'issuer'>, subject: string) =>
  `${oidcLinkPrefix(provider.organisationId, provider.issuer)}${subject}`;

const oidcLinkPrefix = (organisationId: string, issuer: string) => `${organisationId}:${issuer}#`;

/** One entry of an identity's `oidc` credential config. */
interface OidcLink {
  provider: string;
  organisationId: string;
  issuer: string;
  subject: string;
}

export type ResolveResult =
  | { ok: true; identityId: string }
  | { ok: false; reason: 'jit_disabled' | 'refused' | 'inactive'; message?: string; identityId?: string };

/**
 * What the person reads when `resolveIdentity` refuses, the same for every single sign-on method:
 * a deactivated account says so, a refusal the user service worded is shown in its words, and
 * anything else gets the method's own text (`otherwise`).
 */
export function refusalMessage(
  refusal: Extract<ResolveResult, { ok: false }>,
  otherwise: MessageKey,
): UiText | MessageKey {
  if (refusal.reason === 'inactive') return 'ssoInactive';
  return refusal.message ? messages.refusalText(refusal.message) : otherwise;
}

/** The refusal of a link to an address whose account is in another organisation (English; localised by its key). */
const otherOrganisation = catalogue.t('en', 'memberOtherOrganisation');

export async function resolveIdentity(
  service: Pick<IdentityContext, 'db' | 'mailer' | 'config'>,
  directory: ProviderDirectory,
  provider: LinkedProvider,
  person: Person,
  now: Date,
): Promise<ResolveResult> {
  const { db } = service;
  const linked = await db
    .selectFrom('identity_credential_identifiers')
    .select('identity_id')
    .where('type', '=', 'oidc')
    .where('identifier', '=', oidcIdentifier(provider, person.subject))
    .executeTakeFirst();
  let identityId = linked?.identity_id;
  if (!identityId) {
    const byEmail = await db
      .selectFrom('identity_verifiable_addresses')
      .select('identity_id')
      .where('value', '=', person.email)
      .where('verified', '=', true)
      .executeTakeFirst();
    // A new link only to the member of the provider's organisation, as the user service knows it:
    // it refuses an address whose user is in another organisation, and creates one just in time.
    try {
      const member = await directory.member(provider.provider, {
        email: person.email,
        ...(person.firstName ? { firstName: person.firstName } : {}),
        ...(person.lastName ? { lastName: person.lastName } : {}),
        ...(person.groups ? { groups: person.groups } : {}),
      });
      if (byEmail && byEmail.identity_id !== member.identityId) {
        return { ok: false, reason: 'refused', message: otherOrganisation };
      }
      identityId = member.identityId;
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
  if (identity?.state !== 'active') return { ok: false, reason: 'inactive', identityId };
  if (!linked) await link(service, identityId, provider, person, now);
  return { ok: true, identityId };
}

/**
 * Adds the provider-record link and marks the address verified: the provider vouched for it. An
 * account whose address was never proven (someone's self sign-up with this address) is reclaimed
 * first, in the same transaction: whatever its starter set up stops working before the link exists.
 */
async function link(
  service: Pick<IdentityContext, 'db' | 'mailer' | 'config'>,
  identityId: string,
  provider: LinkedProvider,
  person: Person,
  now: Date,
) {
  const entry: OidcLink = {
    provider: provider.provider,
    organisationId: provider.organisationId,
    issuer: provider.issuer,
    subject: person.subject,
  };
  await service.db.transaction().execute(async (trx) => {
    await reclaimUnprovenAccount(trx, service, { identityId, now, reason: 'sso' });
    const existing = await trx
      .selectFrom('identity_credentials')
      .select(['id', 'config'])
      .where('identity_id', '=', identityId)
      .where('type', '=', 'oidc')
      .executeTakeFirst();
    const previous = ((existing?.config as { providers?: unknown[] } | undefined)?.providers ??
      []) as OidcLink[];
    // One link per provider record; an older subject at the same record is replaced.
    const replaced = previous.filter(
      (p) => p.organisationId === entry.organisationId && p.issuer === entry.issuer,
    );
    const providers = [
      ...previous.filter((p) => !(p.organisationId === entry.organisationId && p.issuer === entry.issuer)),
      entry,
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
    for (const old of replaced) {
      await trx
        .deleteFrom('identity_credential_identifiers')
        .where('type', '=', 'oidc')
        .where('identifier', '=', oidcIdentifier(old, old.subject))
        .where('identity_id', '=', identityId)
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

/** What the one-off repair of SSO links found and did (migration 220), per identity and link. */
export async function listLinkRepairs(db: Kysely<IdentityDb>) {
  return db
    .selectFrom('identity_oidc_link_repairs')
    .selectAll()
    .orderBy('identity_id')
    .orderBy('identifier')
    .execute();
}

/**
 * Removes every link to one provider record (organisation + issuer): the user service calls this when
 * the provider is removed or its issuer changes. Answers the identities whose links went.
 */
export async function removeLinks(
  db: Kysely<IdentityDb>,
  organisationId: string,
  issuer: string,
  now: Date,
): Promise<string[]> {
  const prefix = oidcLinkPrefix(organisationId, issuer);
  return db.transaction().execute(async (trx) => {
    const removed = await trx
      .deleteFrom('identity_credential_identifiers')
      .where('type', '=', 'oidc')
      .where(sql<boolean>`left(identifier, ${prefix.length}) = ${prefix}`)
      .returning('identity_id')
      .execute();
    const ids = [...new Set(removed.map((r) => r.identity_id))];
    for (const identityId of ids) {
      const credential = await trx
        .selectFrom('identity_credentials')
        .select(['id', 'config'])
        .where('identity_id', '=', identityId)
        .where('type', '=', 'oidc')
        .executeTakeFirst();
      if (!credential) continue;
      const providers = (
        ((credential.config as { providers?: unknown[] }).providers ?? []) as OidcLink[]
      ).filter((p) => !(p.organisationId === organisationId && p.issuer === issuer));
      if (providers.length === 0) {
        await trx.deleteFrom('identity_credentials').where('id', '=', credential.id).execute();
      } else {
        await trx
          .updateTable('identity_credentials')
          .set({ config: JSON.stringify({ providers }), updated_at: now })
          .where('id', '=', credential.id)
          .execute();
      }
    }
    return ids;
  });
}
