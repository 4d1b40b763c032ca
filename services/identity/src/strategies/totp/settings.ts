import type { Ctx } from '../../context.ts';
import { sessionErrors } from '../../errors/identity-error.ts';
import type { FlowRow } from '../../db/schema.ts';
import type { LoadedIdentity } from '../../identities/repo.ts';
import { computeAal } from '../../sessions/aal.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { hasSecondFactor, isPrivileged } from '../../sessions/policy.ts';
import { messages } from '../../ui/messages.ts';
import type { FieldMessage } from '../../ui/nodes.ts';
import { updateFlow } from '../../flows/flow-store.ts';
import type { SettingsOutcome } from '../profile/settings.ts';
import { verifyTotp } from './totp.ts';

export const MAX_CODE_ATTEMPTS = 5;

/** Checked first on every TOTP code submission (login and linking): the per-flow cap on wrong codes, then a non-empty `totp_code`. */
export function readTotpCode(
  flow: FlowRow,
  body: Record<string, unknown>,
): { refused: { ok: false; messages: FieldMessage[] } } | { failures: number; code: string } {
  const failures = Number(flow.internal.totp_failures ?? 0);
  if (failures >= MAX_CODE_ATTEMPTS)
    return { refused: { ok: false, messages: [{ pointer: '#/', message: messages.tooManyAttempts() }] } };
  const code = typeof body.totp_code === 'string' ? body.totp_code.trim() : '';
  if (!code)
    return {
      refused: { ok: false, messages: [{ pointer: '#/totp_code', message: messages.required('totp_code') }] },
    };
  return { failures, code };
}

/**
 * Links TOTP with the flow's secret (the current session gains an aal2 `totp` method at once) or
 * unlinks it. At most 5 wrong codes per flow.
 */
export async function submitTotpSettings(
  ctx: Ctx,
  session: ActiveSession,
  identity: LoadedIdentity,
  flow: FlowRow,
  body: Record<string, unknown>,
  refreshUrl: string,
): Promise<SettingsOutcome> {
  // A session signed in through the organisation's provider gets its assurance from there.
  if (session.row.authentication_methods.some((m) => m.method === 'oidc')) {
    return {
      ok: false,
      messages: [{ pointer: '#/', message: messages.generic('SSO users cannot set up MFA') }],
    };
  }
  if (!isPrivileged(ctx, session)) throw sessionErrors.refreshRequired(refreshUrl);
  const now = ctx.clock.now();
  if (body.totp_unlink === true || body.totp_unlink === 'true') {
    await ctx.db
      .deleteFrom('identity_credentials')
      .where('identity_id', '=', identity.row.id)
      .where('type', '=', 'totp')
      .execute();
    return { ok: true };
  }
  if (hasSecondFactor(identity))
    return {
      ok: false,
      messages: [
        {
          pointer: '#/',
          message: messages.generic('A TOTP authenticator is already set up; unlink it first.'),
        },
      ],
    };
  const attempt = readTotpCode(flow, body);
  if ('refused' in attempt) return attempt.refused;
  const { failures, code } = attempt;
  const secret = String(flow.internal.totp_secret ?? '');
  const step = secret ? verifyTotp(secret, code, now, undefined) : null;
  if (step === null) {
    await updateFlow(ctx.db, flow.id, { internal: { ...flow.internal, totp_failures: failures + 1 } }, now);
    return { ok: false, messages: [{ pointer: '#/totp_code', message: messages.invalidTotp() }] };
  }
  const methods = [
    ...session.row.authentication_methods,
    { method: 'totp', aal: 'aal2' as const, completed_at: now.toISOString() },
  ];
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('identity_credentials')
      .values({
        id: crypto.randomUUID(),
        identity_id: identity.row.id,
        type: 'totp',
        config: JSON.stringify({ secret, last_step: step }),
        version: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await trx
      .updateTable('identity_sessions')
      .set({ authentication_methods: JSON.stringify(methods), aal: computeAal(methods), updated_at: now })
      .where('id', '=', session.row.id)
      .execute();
    // The flow's secret is spent: a new setup needs a new flow (and a new secret).
    await updateFlow(trx, flow.id, { internal: { ...flow.internal, totp_secret: null } }, now);
  });
  return { ok: true };
}
