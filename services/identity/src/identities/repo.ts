import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Identity } from '@ory/client';
import type { IdentityRow, VerifiableAddressRow, RecoveryAddressRow, CredentialRow } from '../db/schema.ts';
import type { Traits } from '@acme/identity-contract/traits';
import { SCHEMA_ID, schemaUrl } from './schema.ts';
import { isUuid, type Db } from '../db/db.ts';

/** The `email` trait as a string (`fallback` when the trait is absent). */
export function identityEmail(identity: LoadedIdentity, fallback = ''): string {
  return String((identity.row.traits as { email?: unknown }).email ?? fallback);
}

/** Who an SSO rule is asked about: the identity and its current address. */
export function ssoSubject(identity: LoadedIdentity): { id: string; email: string } {
  return { id: identity.row.id, email: identityEmail(identity) };
}

export interface LoadedIdentity {
  row: IdentityRow;
  verifiable: VerifiableAddressRow[];
  recovery: RecoveryAddressRow[];
  credentials: (CredentialRow & { identifiers: string[] })[];
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** One identity with addresses and credential metadata (no credential configs), in one round trip. */
export async function loadIdentity(db: Db, id: string): Promise<LoadedIdentity | undefined> {
  if (!isUuid(id)) return undefined;
  const r = await sql<{ identity: unknown; verifiable: unknown; recovery: unknown; credentials: unknown }>`
    select ${identityJsonColumns('i')} from identity_identities i where i.id = ${id}`.execute(db);
  return r.rows[0] ? identityFromJson(r.rows[0]) : undefined;
}

export async function loadMany(db: Db, rows: IdentityRow[]): Promise<LoadedIdentity[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [verifiable, recovery, credentials, identifiers] = await Promise.all([
    db
      .selectFrom('identity_verifiable_addresses')
      .selectAll()
      .where('identity_id', 'in', ids)
      .orderBy('created_at')
      .execute(),
    db
      .selectFrom('identity_recovery_addresses')
      .selectAll()
      .where('identity_id', 'in', ids)
      .orderBy('created_at')
      .execute(),
    db.selectFrom('identity_credentials').selectAll().where('identity_id', 'in', ids).execute(),
    db.selectFrom('identity_credential_identifiers').selectAll().where('identity_id', 'in', ids).execute(),
  ]);
  return rows.map((row) => ({
    row,
    verifiable: verifiable.filter((a) => a.identity_id === row.id),
    recovery: recovery.filter((a) => a.identity_id === row.id),
    credentials: credentials
      .filter((c) => c.identity_id === row.id)
      .map((c) => ({
        ...c,
        identifiers: identifiers
          .filter((i) => i.identity_id === row.id && i.type === c.type)
          .map((i) => i.identifier),
      })),
  }));
}

export async function findIdentityIdByIdentifier(db: Db, type: string, identifier: string) {
  const r = await db
    .selectFrom('identity_credential_identifiers')
    .select('identity_id')
    .where('type', '=', type)
    .where('identifier', '=', normalizeEmail(identifier))
    .executeTakeFirst();
  return r?.identity_id;
}

export async function getCredential(db: Db, identityId: string, type: string) {
  return db
    .selectFrom('identity_credentials')
    .selectAll()
    .where('identity_id', '=', identityId)
    .where('type', '=', type)
    .executeTakeFirst();
}

/** Inserts or replaces a credential and its identifiers (unique per type across identities). */
export async function upsertCredential(
  db: Db,
  identityId: string,
  type: string,
  config: Record<string, unknown>,
  identifiers: string[],
  now: Date,
): Promise<void> {
  await db
    .insertInto('identity_credentials')
    .values({
      id: randomUUID(),
      identity_id: identityId,
      type,
      config: JSON.stringify(config),
      version: 0,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['identity_id', 'type']).doUpdateSet({ config: JSON.stringify(config), updated_at: now }),
    )
    .execute();
  await db
    .deleteFrom('identity_credential_identifiers')
    .where('identity_id', '=', identityId)
    .where('type', '=', type)
    .execute();
  if (identifiers.length > 0) {
    await db
      .insertInto('identity_credential_identifiers')
      .values(identifiers.map((identifier) => ({ identifier, type, identity_id: identityId })))
      .execute();
  }
}

const insertVerifiable = (db: Db, identityId: string, email: string, now: Date, verified: boolean) =>
  db
    .insertInto('identity_verifiable_addresses')
    .values({
      id: randomUUID(),
      identity_id: identityId,
      value: email,
      via: 'email',
      verified,
      status: verified ? 'completed' : 'pending',
      verified_at: verified ? now : null,
      created_at: now,
      updated_at: now,
    })
    .execute();

const insertRecovery = (db: Db, identityId: string, email: string, now: Date) =>
  db
    .insertInto('identity_recovery_addresses')
    .values({
      id: randomUUID(),
      identity_id: identityId,
      value: email,
      via: 'email',
      created_at: now,
      updated_at: now,
    })
    .execute();

/** A new identity's rows, checked and ready to write (`insertNewIdentities`). */
export interface NewIdentityRows {
  id: string;
  email: string;
  state: 'active' | 'inactive';
  traits: Traits;
  metadataPublic: unknown;
  metadataAdmin: unknown;
  /** The password credential's config, when the identity has one. */
  password: Record<string, unknown> | undefined;
  /** The operator vouches for the address (as Kratos honours `verified` on import). */
  verified: boolean;
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));

/**
 * Writes new identities whole, in the caller's transaction, with one multi-row statement per table
 * (a batch import's 1,000 identities in five statements rather than thousands). A taken address or
 * identifier fails the statement (unique violation), so the caller's transaction writes nothing.
 */
export async function insertNewIdentities(db: Db, identities: readonly NewIdentityRows[], now: Date) {
  if (identities.length === 0) return;
  const stamps = { created_at: now, updated_at: now };
  await db
    .insertInto('identity_identities')
    .values(
      identities.map((i) => ({
        id: i.id,
        schema_id: SCHEMA_ID,
        state: i.state,
        traits: JSON.stringify(i.traits),
        metadata_public: json(i.metadataPublic),
        metadata_admin: json(i.metadataAdmin),
        state_changed_at: now,
        ...stamps,
      })),
    )
    .execute();
  const withPassword = identities.filter((i) => i.password !== undefined);
  if (withPassword.length > 0) {
    await db
      .insertInto('identity_credentials')
      .values(
        withPassword.map((i) => ({
          id: randomUUID(),
          identity_id: i.id,
          type: 'password',
          config: JSON.stringify(i.password),
          version: 0,
          ...stamps,
        })),
      )
      .execute();
    await db
      .insertInto('identity_credential_identifiers')
      .values(withPassword.map((i) => ({ identifier: i.email, type: 'password', identity_id: i.id })))
      .execute();
  }
  await db
    .insertInto('identity_verifiable_addresses')
    .values(
      identities.map((i) => ({
        id: randomUUID(),
        identity_id: i.id,
        value: i.email,
        via: 'email',
        verified: i.verified,
        status: i.verified ? 'completed' : 'pending',
        verified_at: i.verified ? now : null,
        ...stamps,
      })),
    )
    .execute();
  await db
    .insertInto('identity_recovery_addresses')
    .values(
      identities.map((i) => ({
        id: randomUUID(),
        identity_id: i.id,
        value: i.email,
        via: 'email',
        ...stamps,
      })),
    )
    .execute();
}

/** Which of these addresses an identity has already (as an address or a password identifier), in one query. */
export async function takenEmails(db: Db, emails: readonly string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await db
    .selectFrom('identity_verifiable_addresses')
    .select('value')
    .where('via', '=', 'email')
    .where('value', 'in', emails)
    .union(
      db
        .selectFrom('identity_recovery_addresses')
        .select('value')
        .where('via', '=', 'email')
        .where('value', 'in', emails),
    )
    .union(
      db
        .selectFrom('identity_credential_identifiers')
        .select('identifier as value')
        .where('type', '=', 'password')
        .where('identifier', 'in', emails),
    )
    .execute();
  return new Set(rows.map((r) => r.value));
}

/**
 * Keeps addresses and the password identifier in line with `traits.email` (the schema marks it as
 * identifier, verification and recovery address). A changed address starts unverified.
 */
export async function syncAddresses(
  db: Db,
  identityId: string,
  traits: Traits,
  now: Date,
  verified: boolean | undefined,
): Promise<void> {
  const email = normalizeEmail(traits.email);
  const existing = await db
    .selectFrom('identity_verifiable_addresses')
    .selectAll()
    .where('identity_id', '=', identityId)
    .execute();
  const same = existing.find((a) => a.value === email);
  await db
    .deleteFrom('identity_verifiable_addresses')
    .where('identity_id', '=', identityId)
    .where('value', '<>', email)
    .execute();
  if (!same) {
    await insertVerifiable(db, identityId, email, now, verified === true);
  } else if (verified !== undefined && verified !== same.verified) {
    await db
      .updateTable('identity_verifiable_addresses')
      .set({
        verified,
        status: verified ? 'completed' : 'pending',
        verified_at: verified ? now : null,
        updated_at: now,
      })
      .where('id', '=', same.id)
      .execute();
  }
  const rec = await db
    .selectFrom('identity_recovery_addresses')
    .select('value')
    .where('identity_id', '=', identityId)
    .execute();
  if (!(rec.length === 1 && rec[0]?.value === email)) {
    await db.deleteFrom('identity_recovery_addresses').where('identity_id', '=', identityId).execute();
    await insertRecovery(db, identityId, email, now);
  }
  // The password identifier follows the email when a password exists.
  await db
    .updateTable('identity_credential_identifiers')
    .set({ identifier: email })
    .where('identity_id', '=', identityId)
    .where('type', '=', 'password')
    .execute();
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

/** Kratos identity JSON. `admin` adds credential metadata (never secrets) and `metadata_admin`. */
export function toApiIdentity(li: LoadedIdentity, publicUrl: string, admin: boolean): Identity {
  const { row } = li;
  const identity: Identity = {
    id: row.id,
    schema_id: row.schema_id || SCHEMA_ID,
    schema_url: schemaUrl(publicUrl),
    state: row.state as Identity['state'],
    state_changed_at: row.state_changed_at.toISOString(),
    traits: row.traits,
    verifiable_addresses: li.verifiable.map((a) => ({
      id: a.id,
      value: a.value,
      verified: a.verified,
      via: a.via as 'email',
      status: a.status,
      ...(a.verified_at ? { verified_at: iso(a.verified_at) } : {}),
      created_at: a.created_at.toISOString(),
      updated_at: a.updated_at.toISOString(),
    })),
    recovery_addresses: li.recovery.map((a) => ({
      id: a.id,
      value: a.value,
      via: a.via,
      created_at: a.created_at.toISOString(),
      updated_at: a.updated_at.toISOString(),
    })),
    metadata_public: (row.metadata_public ?? null) as object | null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    organization_id: null,
  };
  if (admin) {
    identity.metadata_admin = (row.metadata_admin ?? null) as object | null;
    identity.credentials = Object.fromEntries(
      li.credentials.map((c) => [
        c.type,
        {
          type: c.type as 'password',
          identifiers: c.identifiers,
          version: c.version,
          created_at: c.created_at.toISOString(),
          updated_at: c.updated_at.toISOString(),
        },
      ]),
    );
  }
  return identity;
}

/**
 * SQL selecting one identity row plus its addresses and credential metadata as JSON columns,
 * so a session lookup is a single round trip. `alias` is the identity table alias in the outer query.
 */
export function identityJsonColumns(alias: string, opts: { identifiers: boolean } = { identifiers: true }) {
  const credential = opts.identifiers
    ? `to_jsonb(c) - 'config' || jsonb_build_object('identifiers', coalesce((select jsonb_agg(ci.identifier) from identity_credential_identifiers ci where ci.identity_id = c.identity_id and ci.type = c.type), '[]'::jsonb))`
    : `to_jsonb(c) - 'config' || '{"identifiers":[]}'::jsonb`;
  return sql.raw(`to_jsonb(${alias}) as identity,
  coalesce((select jsonb_agg(to_jsonb(a) order by a.created_at) from identity_verifiable_addresses a where a.identity_id = ${alias}.id), '[]'::jsonb) as verifiable,
  coalesce((select jsonb_agg(to_jsonb(r) order by r.created_at) from identity_recovery_addresses r where r.identity_id = ${alias}.id), '[]'::jsonb) as recovery,
  coalesce((select jsonb_agg(${credential}) from identity_credentials c where c.identity_id = ${alias}.id), '[]'::jsonb) as credentials`);
}

type JsonRow = Record<string, unknown>;
const dates = <T>(o: JsonRow, keys: string[]): T => {
  const out: JsonRow = { ...o };
  for (const k of keys) out[k] = o[k] == null ? null : new Date(o[k] as string);
  return out as T;
};

/** Rebuilds a LoadedIdentity from the JSON columns of `identityJsonColumns` (credential configs are not loaded). */
export function identityFromJson(r: {
  identity: unknown;
  verifiable: unknown;
  recovery: unknown;
  credentials: unknown;
}): LoadedIdentity {
  const ts = ['created_at', 'updated_at'];
  return {
    row: dates<IdentityRow>(r.identity as JsonRow, ['state_changed_at', ...ts]),
    verifiable: (r.verifiable as JsonRow[]).map((a) =>
      dates<VerifiableAddressRow>(a, ['verified_at', ...ts]),
    ),
    recovery: (r.recovery as JsonRow[]).map((a) => dates<RecoveryAddressRow>(a, ts)),
    credentials: (r.credentials as JsonRow[]).map((c) => ({
      ...dates<CredentialRow>(c, ts),
      config: {},
      identifiers: c.identifiers as string[],
    })),
  };
}
