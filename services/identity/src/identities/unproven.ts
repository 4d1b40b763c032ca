import { renderUnprovenAccountNotice } from '@acme/mail';
import { recipientLocale } from './notices.ts';
import type { IdentityContext } from '../context.ts';
import type { Db } from '../db/db.ts';
import { recordSecurityEvent } from '../db/security-events.ts';
import { revokeIdentitySessions } from '../sessions/repo.ts';

/** Every way in a person can set up on an account themselves (an SSO link is the provider's, not theirs). */
const OWN_CREDENTIALS = ['password', 'passkey', 'webauthn', 'totp', 'lookup_secret'] as const;

/**
 * Whether the account's address was never proven: no verified address. A self sign-up whose code was
 * never entered is such an account, and so is one that someone else started with an address that is
 * not theirs.
 */
async function addressNeverProven(db: Db, identityId: string): Promise<boolean> {
  const proven = await db
    .selectFrom('identity_verifiable_addresses')
    .select('id')
    .where('identity_id', '=', identityId)
    .where('verified', '=', true)
    .executeTakeFirst();
  return proven === undefined;
}

/**
 * Before an account whose address was never proven is handed to someone who proves the address
 * (a first single sign-on, an invitation, a password recovery by code), whoever started it loses every way in they set up: the
 * password, passkeys, security keys, TOTP and backup codes, and every session. The person is told
 * by mail, and the change is a security event; all of it commits in the caller's transaction, which
 * should hold the identity's row lock. Returns false (and changes nothing) when the address was proven.
 */
export async function reclaimUnprovenAccount(
  trx: Db,
  service: Pick<IdentityContext, 'mailer' | 'config'>,
  p: { identityId: string; now: Date; reason: 'sso' | 'invitation' | 'recovery' },
): Promise<boolean> {
  const { identityId, now } = p;
  await trx
    .selectFrom('identity_identities')
    .select('id')
    .where('id', '=', identityId)
    .forUpdate()
    .executeTakeFirst();
  if (!(await addressNeverProven(trx, identityId))) return false;
  const address = await trx
    .selectFrom('identity_verifiable_addresses')
    .select('value')
    .where('identity_id', '=', identityId)
    .orderBy('created_at')
    .executeTakeFirst();
  await trx
    .deleteFrom('identity_credentials')
    .where('identity_id', '=', identityId)
    .where('type', 'in', [...OWN_CREDENTIALS])
    .execute();
  // The password's identifier follows the address (it stays); key handles go with their keys.
  await trx
    .deleteFrom('identity_credential_identifiers')
    .where('identity_id', '=', identityId)
    .where('type', 'in', ['passkey', 'webauthn'])
    .execute();
  await revokeIdentitySessions(trx, identityId, now);
  await recordSecurityEvent(trx, service, {
    type: 'account.reclaimed',
    subjectId: identityId,
    actor: { kind: 'system', id: null },
    details: { reason: p.reason },
    at: now,
  });
  if (address) {
    const locale = await recipientLocale(trx, { to: address.value, identityId });
    const mail = renderUnprovenAccountNotice({ appName: service.config.appName, at: now, locale });
    await service.mailer.enqueue({ to: address.value, ...mail }, trx);
  }
  return true;
}
