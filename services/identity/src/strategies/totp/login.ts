import { sql } from 'kysely';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { errors } from '../../errors/identity-error.ts';
import { getCredential, identityEmail, normalizeEmail } from '../../identities/repo.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { isAccountLocked, recordAccountFailure, resetAccount } from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import { updateFlow } from '../../flows/flow-store.ts';
import type { LoginOutcome } from '../password/login.ts';
import { readTotpCode } from './settings.ts';
import { verifyTotp } from './totp.ts';

/**
 * Second factor at login (aal2 flows). Wrong codes answer 4000008 in `ui.messages`; after 5 wrong
 * codes the flow is dead. Each time step is accepted once (the last accepted step is stored and the
 * update is conditional, so two concurrent submits of one code cannot both pass).
 */
export async function submitTotpLogin(
  ctx: Ctx,
  flow: FlowRow,
  session: ActiveSession | undefined,
  body: Record<string, unknown>,
): Promise<LoginOutcome> {
  if (!session) throw errors.aal1Required();
  const now = ctx.clock.now();
  const attempt = readTotpCode(flow, body);
  if ('refused' in attempt) return attempt.refused;
  const { failures, code } = attempt;

  const identityId = session.row.identity_id;
  const key = normalizeIdentifier(normalizeEmail(identityEmail(session.identity, identityId)));
  const invalid: LoginOutcome = { ok: false, messages: [{ pointer: '#/', message: messages.invalidTotp() }] };
  const fail = async () => {
    await updateFlow(ctx.db, flow.id, { internal: { ...flow.internal, totp_failures: failures + 1 } }, now);
    await recordAccountFailure(ctx.db, key, now, ctx.config.lockout);
    return invalid;
  };
  if (await isAccountLocked(ctx.db, key, now)) return fail();
  const credential = await getCredential(ctx.db, identityId, 'totp');
  if (!credential) return { ok: false, messages: [{ pointer: '#/', message: messages.noTotp() }] };
  const secret = String(credential.config.secret ?? '');
  const lastStep = typeof credential.config.last_step === 'number' ? credential.config.last_step : undefined;
  const step = verifyTotp(secret, code, now, lastStep);
  if (step === null) return fail();
  const claimed = await sql`update identity_credentials
    set config = jsonb_set(config, '{last_step}', to_jsonb(${step}::int)), updated_at = ${now}
    where id = ${credential.id} and coalesce((config->>'last_step')::int, -1) < ${step}`.execute(ctx.db);
  if (Number(claimed.numAffectedRows ?? 0) !== 1) return fail();
  await resetAccount(ctx.db, key);
  return { ok: true, identityId };
}
