import { sql, type Kysely } from 'kysely';
import type { IdentityDb } from '../db/schema.ts';

/**
 * Ends every unfinished recovery flow of an identity (admin-issued invitation codes and the
 * user's own recovery requests alike): the flow expires now and forgets its code hash, so neither
 * the link nor the code can sign anyone in afterwards. One statement, so it is all or nothing.
 * Returns how many flows it ended.
 */
export async function endRecoveryFlows(
  db: Kysely<IdentityDb>,
  identityId: string,
  now: Date,
): Promise<number> {
  const r = await db
    .updateTable('identity_flows')
    .set({
      expires_at: now,
      internal: sql<string>`internal - 'code_hash'`,
      updated_at: now,
    })
    .where('kind', '=', 'recovery')
    .where('state', '!=', 'passed_challenge')
    .where('expires_at', '>', now)
    .where(sql<boolean>`internal->>'identity_id' = ${identityId}`)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
