import type { Locale } from '@acme/i18n';
import type { UsersContext } from '../context.ts';

/**
 * A person's language for mails: their identity's `traits.locale`, or undefined when they set none,
 * have no identity, or the identity service does not answer (a mail is never held back for it).
 */
export async function personLocale(
  ctx: Pick<UsersContext, 'identityAdmin'>,
  identityId: string | null,
): Promise<Locale | undefined> {
  if (!identityId) return undefined;
  return (await ctx.identityAdmin.getIdentity(identityId).catch(() => null))?.locale;
}
