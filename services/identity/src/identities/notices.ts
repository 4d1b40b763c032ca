import {
  renderLockoutNotice,
  renderSecurityNotice,
  type Executor,
  type SecurityNoticeKind,
} from '@acme/mail';
import { chooseLocale, type Locale } from '@acme/i18n';
import type { IdentityContext } from '../context.ts';
import type { Db } from '../db/db.ts';
import { normalizeEmail } from './repo.ts';

type MailService = Pick<IdentityContext, 'mailer' | 'config' | 'db'>;

/**
 * The locale of a mail to `to`: its owner's `traits.locale` (the identity given, else the one that
 * holds the address), else English. A mail never follows the browser of the request that caused
 * it: its reader is the address's owner, who may not be the one asking.
 */
export async function recipientLocale(
  db: Db,
  p: { to: string; identityId?: string | null },
): Promise<Locale> {
  const owner = p.identityId
    ? db.selectFrom('identity_identities as i').where('i.id', '=', p.identityId)
    : db
        .selectFrom('identity_identities as i')
        .where((eb) =>
          eb.or([
            eb(
              'i.id',
              'in',
              eb
                .selectFrom('identity_verifiable_addresses')
                .select('identity_id')
                .where('value', '=', normalizeEmail(p.to)),
            ),
            eb(
              'i.id',
              'in',
              eb
                .selectFrom('identity_recovery_addresses')
                .select('identity_id')
                .where('value', '=', normalizeEmail(p.to)),
            ),
          ]),
        );
  const row = await owner.select('i.traits').executeTakeFirst();
  return chooseLocale({ setting: (row?.traits as { locale?: unknown } | undefined)?.locale });
}

/**
 * Tells the owner of an account about a security-relevant change (password, second factor, email
 * address). Queued through the outbox, in the caller's transaction when one is given, so the notice
 * exists exactly when the change does.
 */
export async function queueSecurityNotice(
  service: MailService,
  p: {
    to: string;
    kind: SecurityNoticeKind;
    at: Date;
    newEmail?: string;
    remaining?: number;
    /** The account's identity, when the address may no longer name it (a changed address). */
    identityId?: string;
  },
  trx?: Executor,
): Promise<void> {
  const mail = renderSecurityNotice({
    locale: await recipientLocale((trx ?? service.db) as Db, p),
    kind: p.kind,
    appName: service.config.appName,
    at: p.at,
    ...(p.newEmail ? { newEmail: p.newEmail } : {}),
    ...(p.remaining !== undefined ? { remaining: p.remaining } : {}),
  });
  await service.mailer.enqueue({ to: p.to, ...mail }, trx);
}

/**
 * Tells the owner of an account that password sign-in is paused until `until` (a lockout started),
 * and what to do next: wait, recover the password (which ends the lockout), or ask an administrator.
 * Queued in the caller's transaction; sent once per lockout start, never for unknown addresses.
 */
export async function queueLockoutNotice(
  service: Pick<IdentityContext, 'mailer' | 'config'>,
  p: { to: string; until: Date },
  trx: Executor,
): Promise<void> {
  const mail = renderLockoutNotice({
    locale: await recipientLocale(trx as Db, p),
    appName: service.config.appName,
    until: p.until,
    recoveryUrl: service.config.ui.recovery,
  });
  await service.mailer.enqueue({ to: p.to, ...mail }, trx);
}
