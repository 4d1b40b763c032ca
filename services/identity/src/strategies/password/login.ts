import type { FastifyRequest } from 'fastify';
import type { Ctx } from '../../context.ts';
import { errors } from '../../errors/identity-error.ts';
import { findIdentityIdByIdentifier, getCredential } from '../../identities/repo.ts';
import { MAX_PASSWORD_BYTES } from '../../password/policy.ts';
import { hashPassword, needsRehash, verifyDummy, verifyPassword } from '../../password/hasher.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import {
  ipRetryAfter,
  isAccountLocked,
  recordAccountFailure,
  recordIpFailure,
  resetAccount,
} from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import type { FieldMessage } from '../../ui/nodes.ts';

export type LoginOutcome =
  { ok: true; identityId: string } | { ok: false; messages: FieldMessage[]; identifier?: string };

/**
 * Password login. Unknown identifiers, wrong passwords and locked accounts all answer the same
 * 4000006; the per-account counter is keyed by the normalised identifier whether or not it exists.
 */
export async function submitPassword(
  ctx: Ctx,
  req: FastifyRequest,
  body: Record<string, unknown>,
): Promise<LoginOutcome> {
  const { identifier, password } = body;
  const missing: FieldMessage[] = [];
  if (typeof identifier !== 'string' || identifier === '')
    missing.push({ pointer: '#/identifier', message: messages.required('identifier') });
  if (typeof password !== 'string' || password === '')
    missing.push({ pointer: '#/password', message: messages.required('password') });
  if (missing.length || typeof identifier !== 'string' || typeof password !== 'string') {
    return { ok: false, messages: missing, ...(typeof identifier === 'string' ? { identifier } : {}) };
  }
  const invalid: LoginOutcome = {
    ok: false,
    messages: [{ pointer: '#/', message: messages.invalidCredentials() }],
    identifier,
  };
  if (identifier.length > 320 || Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return invalid;

  const now = ctx.clock.now();
  const ip = req.ip;
  const retryAfter = await ipRetryAfter(ctx.db, ip, now, ctx.config.ipLimit);
  if (retryAfter > 0) throw errors.tooManyRequests(retryAfter);

  const key = normalizeIdentifier(identifier);
  if (await isAccountLocked(ctx.db, key, now)) return invalid;

  const identityId = await findIdentityIdByIdentifier(ctx.db, 'password', key);
  const credential = identityId ? await getCredential(ctx.db, identityId, 'password') : undefined;
  const hashed =
    typeof credential?.config.hashed_password === 'string' ? credential.config.hashed_password : undefined;
  const ok = hashed ? await verifyPassword(hashed, password) : await verifyDummy(password);
  const identity =
    ok && identityId
      ? await ctx.db
          .selectFrom('identity_identities')
          .select('state')
          .where('id', '=', identityId)
          .executeTakeFirst()
      : undefined;

  if (!ok || !identityId || !hashed || identity?.state !== 'active') {
    await recordAccountFailure(ctx.db, key, now, ctx.config.lockout);
    await recordIpFailure(ctx.db, ip, now, ctx.config.ipLimit.windowMs);
    return invalid;
  }
  await resetAccount(ctx.db, key);
  if (needsRehash(hashed)) {
    const upgraded = await hashPassword(password);
    await ctx.db
      .updateTable('identity_credentials')
      .set({ config: JSON.stringify({ ...credential!.config, hashed_password: upgraded }), updated_at: now })
      .where('id', '=', credential!.id)
      .execute();
  }
  return { ok: true, identityId };
}
