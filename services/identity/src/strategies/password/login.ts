import type { FlowRow } from '../../db/schema.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy, StrategyContext } from '../../flows/strategy.ts';
import { sessionIdentifier } from '../../sessions/current.ts';
import { errors } from '../../errors/identity-error.ts';
import { findIdentityIdByIdentifier, getCredential } from '../../identities/repo.ts';
import { MAX_PASSWORD_BYTES } from '../../password/policy.ts';
import { needsRehash } from '../../password/hasher.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import {
  ipRetryAfter,
  isAccountLocked,
  recordAccountFailure,
  recordIpFailure,
  resetAccount,
} from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import { passwordLoginNodes, type FieldMessage } from '../../ui/nodes.ts';

/**
 * Password login (aal1 flows). Unknown identifiers, wrong passwords and locked accounts all answer the
 * same 4000006; the per-account counter is keyed by the normalised identifier whether or not it exists.
 */
export const passwordLogin: Strategy = {
  method: 'password',
  group: 'password',
  accepts: (flow) => flow.requested_aal === 'aal1',
  nodes: (flow, { session }) => {
    // A refresh with a session confirms the signed-in user: the identifier is theirs, and hidden.
    const hidden = !!session && flow.refresh;
    return passwordLoginNodes({ identifier: hidden ? sessionIdentifier(session) : '', refresh: hidden });
  },
  submit: (flow, input, ctx) => submitPassword(flow, input, ctx),
};

async function submitPassword(
  flow: FlowRow,
  body: Record<string, unknown>,
  ctx: StrategyContext,
): Promise<Outcome> {
  const { identifier, password } = body;
  const missing: FieldMessage[] = [];
  if (typeof identifier !== 'string' || identifier === '')
    missing.push({ pointer: '#/identifier', message: messages.required('identifier') });
  if (typeof password !== 'string' || password === '')
    missing.push({ pointer: '#/password', message: messages.required('password') });
  // The form keeps the typed identifier (not on refresh flows, whose identifier is the session's).
  const values = (id: unknown): Record<string, string> =>
    typeof id === 'string' && !flow.refresh ? { identifier: id } : {};
  if (missing.length || typeof identifier !== 'string' || typeof password !== 'string') {
    return { type: 'flow_updated', messages: missing, values: values(identifier) };
  }
  const invalid: Outcome = {
    type: 'flow_updated',
    messages: [{ pointer: '#/', message: messages.invalidCredentials() }],
    values: values(identifier),
  };
  if (identifier.length > 320 || Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES) return invalid;

  const { service, now } = ctx;
  const ip = ctx.client.ip;
  const retryAfter = await ipRetryAfter(service.db, ip, now, service.config.ipLimit);
  if (retryAfter > 0) return { type: 'error', error: errors.tooManyRequests(retryAfter) };

  const key = normalizeIdentifier(identifier);
  if (await isAccountLocked(service.db, key, now)) return invalid;

  const identityId = await findIdentityIdByIdentifier(service.db, 'password', key);
  const credential = identityId ? await getCredential(service.db, identityId, 'password') : undefined;
  const hashed =
    typeof credential?.config.hashed_password === 'string' ? credential.config.hashed_password : undefined;
  const ok = hashed
    ? await service.passwords.verify(hashed, password)
    : await service.passwords.verifyDummy(password);
  const identity =
    ok && identityId
      ? await service.db
          .selectFrom('identity_identities')
          .select('state')
          .where('id', '=', identityId)
          .executeTakeFirst()
      : undefined;

  if (!ok || !identityId || !hashed || identity?.state !== 'active') {
    await recordAccountFailure(service.db, key, now, service.config.lockout);
    await recordIpFailure(service.db, ip, now, service.config.ipLimit.windowMs);
    return invalid;
  }
  await resetAccount(service.db, key);
  if (needsRehash(hashed)) {
    const upgraded = await service.passwords.hash(password);
    await service.db
      .updateTable('identity_credentials')
      .set({ config: JSON.stringify({ ...credential!.config, hashed_password: upgraded }), updated_at: now })
      .where('id', '=', credential!.id)
      .execute();
  }
  return { type: 'success', identityId, method: 'password' };
}
