import { sql, type Kysely } from 'kysely';
import type { SecretBox } from '@acme/service-kit/secret-box';
import type { UsersDb } from '../db-types.ts';

/**
 * Seals again, under the first SSO_SECRET_KEY, every organisation's SSO client secret that an
 * earlier key sealed, so the old key can be dropped from the list (the third step of a rotation).
 * Runs at start: each instance restarted with the new key first does it, and the update is
 * conditional on the stored value, so instances doing it at once write each row once. A secret no
 * configured key opens is left as it is and counted (the caller logs the count, never a value).
 */
export async function resealSsoSecrets(
  db: Kysely<UsersDb>,
  box: SecretBox,
): Promise<{ resealed: number; unreadable: number }> {
  const rows = await db
    .selectFrom('sso_providers')
    .select(['provider_id', 'client_secret_enc'])
    .where('client_secret_enc', 'is not', null)
    .execute();
  let resealed = 0;
  let unreadable = 0;
  for (const row of rows) {
    const sealed = row.client_secret_enc!;
    if (box.isCurrent(sealed)) continue;
    let plaintext: string;
    try {
      plaintext = box.open(sealed, row.provider_id);
    } catch {
      unreadable++;
      continue;
    }
    const updated = await db
      .updateTable('sso_providers')
      .set({ client_secret_enc: box.seal(plaintext, row.provider_id) })
      .where('provider_id', '=', row.provider_id)
      .where(sql<boolean>`client_secret_enc = ${sealed}`)
      .executeTakeFirst();
    resealed += Number(updated.numUpdatedRows);
  }
  return { resealed, unreadable };
}
