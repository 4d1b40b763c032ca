import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '@acme/db/clock';
import { IdentityError, errors } from '../errors/identity-error.ts';
import { hashPassword, isSupportedHash } from '../password/hasher.ts';

/** Hashes a plain password (the service's bounded pool; seeding may hash directly). */
export type HashFn = (password: string) => Promise<string>;
import { checkPasswordPolicy } from '../password/policy.ts';
import { resetLogin } from '../throttle/attempts.ts';
import { normalizeIdentifier } from '../throttle/backoff.ts';
import {
  insertNewIdentities,
  loadIdentity,
  normalizeEmail,
  type NewIdentityRows,
  syncAddresses,
  upsertCredential,
  type LoadedIdentity,
} from './repo.ts';
import type { Db } from '../db/db.ts';
import type { Traits } from '@acme/identity-contract/traits';
import { SCHEMA_ID, validateTraits } from './schema.ts';
import { endRecoveryFlows } from './recovery-flows.ts';
import { revokeIdentitySessions } from '../sessions/repo.ts';

const Address = z.looseObject({ value: z.string().max(320), verified: z.boolean().optional() });
const PasswordCredential = z.looseObject({
  config: z.looseObject({ password: z.string().optional(), hashed_password: z.string().optional() }),
});
export const CreateIdentityBodySchema = z.looseObject({
  schema_id: z.string().optional(),
  traits: z.unknown(),
  state: z.enum(['active', 'inactive']).optional(),
  metadata_public: z.unknown().optional(),
  metadata_admin: z.unknown().optional(),
  verifiable_addresses: z.array(Address).max(10).optional(),
  recovery_addresses: z.array(Address).max(10).optional(),
  credentials: z.looseObject({ password: PasswordCredential.optional() }).optional(),
});
export type CreateIdentityInput = z.infer<typeof CreateIdentityBodySchema>;

export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) {
    throw errors.badRequest(
      `The request body is invalid: ${r.error.issues.map((i) => `#/${i.path.join('/')}: ${i.message}`).join('; ')}`.slice(
        0,
        1000,
      ),
    );
  }
  return r.data;
}

function checkSchemaId(id: string | undefined) {
  if (id !== undefined && id !== SCHEMA_ID)
    throw errors.badRequest(`Unknown identity schema "${id.slice(0, 64)}"; the only schema is "default".`);
}

function checkTraits(traits: unknown): Traits {
  const r = validateTraits(traits);
  if (!r.ok) throw errors.badRequest(`The traits are invalid: ${r.problems.join('; ')}`.slice(0, 1000));
  return r.traits;
}

/** Plain passwords go through the policy and get hashed; imported hashes must be a supported format. */
async function passwordConfig(
  cred: z.infer<typeof PasswordCredential> | undefined,
  identifier: string,
  hash: HashFn,
) {
  if (!cred) return undefined;
  const { password, hashed_password } = cred.config;
  if (typeof password === 'string') {
    const problem = checkPasswordPolicy(password, identifier);
    if (problem) {
      throw new IdentityError(400, {
        reason: problem.text,
        details: { ui_message: problem, pointer: '#/credentials/password/config/password' },
      });
    }
    return { hashed_password: await hash(password) };
  }
  if (typeof hashed_password === 'string') {
    if (!isSupportedHash(hashed_password))
      throw errors.badRequest(
        'The hashed password is not a supported argon2, bcrypt, PBKDF2 or scrypt hash (or its parameters are out of bounds).',
      );
    return { hashed_password };
  }
  throw errors.badRequest('credentials.password.config needs password or hashed_password.');
}

/** An identity's address or identifier is another's already (Kratos's 409). */
export const conflictError = () =>
  new IdentityError(409, {
    reason: 'This identity conflicts with another identity that already exists.',
  });

/** Whether a write failed on a unique constraint (an address or identifier taken meanwhile). */
export const isConflict = (e: unknown) =>
  Boolean(e && typeof e === 'object' && (e as { code?: string }).code === '23505');

function conflictOr(e: unknown): never {
  if (isConflict(e)) throw conflictError();
  throw e;
}

export async function createIdentity(
  db: Db,
  clock: Clock,
  input: CreateIdentityInput,
  hash: HashFn = hashPassword,
): Promise<LoadedIdentity> {
  return (await loadIdentity(db, await insertIdentity(db, clock, input, hash)))!;
}

/**
 * Checks one new identity (schema, traits, password policy or imported hash) and answers its rows,
 * a plain password hashed; nothing is written. A problem is the item's IdentityError.
 */
export async function prepareIdentity(
  input: CreateIdentityInput,
  hash: HashFn = hashPassword,
): Promise<NewIdentityRows> {
  checkSchemaId(input.schema_id);
  const traits = checkTraits(input.traits);
  const email = normalizeEmail(traits.email);
  const password = await passwordConfig(input.credentials?.password, email, hash);
  // The operator vouches for a proven address (as Kratos honours `verified` on import).
  const verified = input.verifiable_addresses?.some(
    (a) => normalizeEmail(a.value) === email && a.verified === true,
  );
  return {
    id: randomUUID(),
    email,
    state: input.state ?? 'active',
    traits,
    metadataPublic: input.metadata_public,
    metadataAdmin: input.metadata_admin,
    password,
    verified: verified ?? false,
  };
}

/** Writes checked identities in one transaction: all of them, or (on a conflict) none. */
export async function writeIdentities(db: Db, clock: Clock, identities: readonly NewIdentityRows[]) {
  const now = clock.now();
  await db.transaction().execute((trx) => insertNewIdentities(trx, identities, now));
}

/**
 * Validates and writes one new identity in its own transaction, answering its id: an identity is
 * written whole or not at all. A taken address is a 409.
 */
async function insertIdentity(
  db: Db,
  clock: Clock,
  input: CreateIdentityInput,
  hash: HashFn = hashPassword,
): Promise<string> {
  const identity = await prepareIdentity(input, hash);
  try {
    await writeIdentities(db, clock, [identity]);
  } catch (e) {
    conflictOr(e);
  }
  return identity.id;
}

export interface UpdateInput {
  schema_id?: string;
  traits: unknown;
  state?: 'active' | 'inactive';
  metadata_public?: unknown;
  metadata_admin?: unknown;
  verifiable_addresses?: { value: string; verified?: boolean }[];
  credentials?: { password?: z.infer<typeof PasswordCredential> };
}

/** Full replacement of the mutable parts (PUT, and PATCH after the patch is applied). */
export async function updateIdentity(
  db: Db,
  clock: Clock,
  id: string,
  input: UpdateInput,
  hash: HashFn = hashPassword,
  /** More writes that must commit with the update, or not at all (a notice mail). */
  alsoInTransaction?: (trx: Db) => Promise<void>,
): Promise<LoadedIdentity> {
  const current = await loadIdentity(db, id);
  if (!current) throw errors.notFound('Unable to locate the resource');
  checkSchemaId(input.schema_id);
  const traits = checkTraits(input.traits);
  const email = normalizeEmail(traits.email);
  const password = await passwordConfig(input.credentials?.password, email, hash);
  const addr = input.verifiable_addresses?.find((a) => normalizeEmail(a.value) === email);
  const now = clock.now();
  const state = input.state ?? (current.row.state as 'active' | 'inactive');
  try {
    await db.transaction().execute(async (trx) => {
      await trx
        .updateTable('identity_identities')
        .set({
          traits: JSON.stringify(traits),
          state,
          ...(state !== current.row.state ? { state_changed_at: now } : {}),
          ...(input.metadata_public !== undefined
            ? { metadata_public: JSON.stringify(input.metadata_public) }
            : {}),
          ...(input.metadata_admin !== undefined
            ? { metadata_admin: JSON.stringify(input.metadata_admin) }
            : {}),
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      await syncAddresses(trx, id, traits, now, addr?.verified);
      if (state === 'inactive' && current.row.state !== 'inactive') {
        // A deactivated identity keeps nothing that signs in: its sessions and recovery codes end
        // in the same transaction as the state change.
        await revokeIdentitySessions(trx, id, now);
        await endRecoveryFlows(trx, id, now);
      }
      if (password) {
        await upsertCredential(trx, id, 'password', password, [email], now);
        await resetLogin(trx, normalizeIdentifier(email));
        // An administrator's password reset ends every session: none of them made the change.
        await revokeIdentitySessions(trx, id, now);
      }
      await alsoInTransaction?.(trx);
    });
  } catch (e) {
    conflictOr(e);
  }
  return (await loadIdentity(db, id))!;
}

export function currentDocument(li: LoadedIdentity): Record<string, unknown> {
  return {
    schema_id: li.row.schema_id,
    state: li.row.state,
    traits: li.row.traits,
    metadata_public: li.row.metadata_public ?? null,
    metadata_admin: li.row.metadata_admin ?? null,
    verifiable_addresses: li.verifiable.map((a) => ({ value: a.value, verified: a.verified })),
    credentials: {},
  };
}
