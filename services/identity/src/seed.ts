import type { Database } from '@acme/db';
import { typed } from '@acme/db';
import { systemClock, type Clock } from '@acme/db/clock';
import type { IdentityDb } from './db/schema.ts';
import { findIdentityIdByIdentifier, normalizeEmail } from './identities/repo.ts';
import { createIdentity } from './identities/service.ts';
import type { Traits } from '@acme/identity-contract/traits';

export interface SeedIdentity {
  email: string;
  password: string;
  traits?: Omit<Partial<Traits>, 'email'>;
  verified?: boolean;
}

/**
 * Creates a password identity unless one with that email exists (idempotent; run after `migrate`).
 * Returns the identity id and whether it was created. The admin API does the same over HTTP:
 * `POST /admin/identities` answers 409 when the identifier exists.
 */
export async function ensurePasswordIdentity(
  db: Database,
  input: SeedIdentity,
  clock: Clock = systemClock,
): Promise<{ id: string; created: boolean }> {
  const kysely = typed<IdentityDb>(db);
  const existing = await findIdentityIdByIdentifier(kysely, 'password', normalizeEmail(input.email));
  if (existing) return { id: existing, created: false };
  const li = await createIdentity(kysely, clock, {
    schema_id: 'default',
    traits: { ...input.traits, email: input.email },
    credentials: { password: { config: { password: input.password } } },
    verifiable_addresses: [{ value: input.email, verified: input.verified ?? true }],
  });
  return { id: li.row.id, created: true };
}
