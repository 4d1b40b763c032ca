import {
  renderLockoutNotice,
  renderSecurityNotice,
  type Executor,
  type SecurityNoticeKind,
} from '@acme/mail';
import type { IdentityContext } from '../context.ts';

/**
 * Tells the owner of an account about a security-relevant change (password, second factor, email
 * address). Queued through the outbox, in the caller's transaction when one is given, so the notice
 * exists exactly when the change does.
 */
export async function queueSecurityNotice(
  service: Pick<IdentityContext, 'mailer' | 'config'>,
  p: { to: string; kind: SecurityNoticeKind; at: Date; newEmail?: string; remaining?: number },
  trx?: Executor,
): Promise<void> {
  const mail = renderSecurityNotice({
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
    appName: service.config.appName,
    until: p.until,
    recoveryUrl: service.config.ui.recovery,
  });
  await service.mailer.enqueue({ to: p.to, ...mail }, trx);
}
