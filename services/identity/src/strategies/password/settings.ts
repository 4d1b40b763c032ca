import type { Ctx } from '../../context.ts';
import { sessionErrors } from '../../errors/identity-error.ts';
import {
  identityEmail,
  normalizeEmail,
  upsertCredential,
  type LoadedIdentity,
} from '../../identities/repo.ts';
import { hashPassword } from '../../password/hasher.ts';
import { checkPasswordPolicy } from '../../password/policy.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { isPrivileged } from '../../sessions/policy.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { resetAccount } from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import type { SettingsOutcome } from '../profile/settings.ts';

/** Sets or changes the password (privileged session required; server-side policy on the `password` node). */
export async function submitPasswordSettings(
  ctx: Ctx,
  session: ActiveSession,
  identity: LoadedIdentity,
  body: Record<string, unknown>,
  refreshUrl: string,
): Promise<SettingsOutcome> {
  if (!isPrivileged(ctx, session)) throw sessionErrors.refreshRequired(refreshUrl);
  const { password } = body;
  if (typeof password !== 'string' || password === '') {
    return { ok: false, messages: [{ pointer: '#/password', message: messages.required('password') }] };
  }
  const email = normalizeEmail(identityEmail(identity));
  const problem = checkPasswordPolicy(password, email);
  if (problem) return { ok: false, messages: [{ pointer: '#/password', message: problem }] };
  const hashed = await hashPassword(password);
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await upsertCredential(trx, identity.row.id, 'password', { hashed_password: hashed }, [email], now);
    await resetAccount(trx, normalizeIdentifier(email));
  });
  return { ok: true };
}
