import type { IdentityContext } from '../context.ts';
import type { LoadedIdentity } from '../identities/repo.ts';
import type { ActiveSession } from './repo.ts';

/** The identity's highest available AAL: aal2 once it has a TOTP or a security key (`webauthn`) credential. */
export const hasSecondFactor = (identity: LoadedIdentity) =>
  identity.credentials.some((c) => c.type === 'totp' || c.type === 'webauthn');

/** Whether an authenticator app is linked (TOTP settings: one at a time). */
export const hasTotp = (identity: LoadedIdentity) => identity.credentials.some((c) => c.type === 'totp');

/** `required_aal: highest_available` (whoami and settings defaults). */
export const meetsHighestAal = (s: ActiveSession) => !hasSecondFactor(s.identity) || s.row.aal === 'aal2';

/** Privileged for `privileged_session_max_age` after the last authentication. */
export const isPrivileged = (ctx: IdentityContext, s: ActiveSession) =>
  s.row.authenticated_at.getTime() + ctx.config.privilegedSessionMaxAgeMs > ctx.clock.now().getTime();

export function aal2LoginUrl(
  ctx: IdentityContext,
  params: Record<string, string | null | undefined> = {},
): string {
  const u = new URL(`${ctx.config.publicUrl}/self-service/login/browser`);
  u.searchParams.set('aal', 'aal2');
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  return u.toString();
}
