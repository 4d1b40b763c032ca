import { renderSecurityNotice, type Executor, type SecurityNoticeKind } from '@acme/mail';
import type { IdentityContext } from '../context.ts';

/**
 * Tells the owner of an account about a security-relevant change (password, second factor, email
 * address). Queued through the outbox, in the caller's transaction when one is given, so the notice
 * exists exactly when the change does.
 */
export async function queueSecurityNotice(
  service: Pick<IdentityContext, 'mailer' | 'config'>,
  p: { to: string; kind: SecurityNoticeKind; at: Date; newEmail?: string },
  trx?: Executor,
): Promise<void> {
  const mail = renderSecurityNotice({
    kind: p.kind,
    appName: service.config.appName,
    at: p.at,
    ...(p.newEmail ? { newEmail: p.newEmail } : {}),
  });
  await service.mailer.enqueue({ to: p.to, ...mail }, trx);
}
