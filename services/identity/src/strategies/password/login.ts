import { sql } from 'kysely';
import type { FlowRow } from '../../db/schema.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy, StrategyContext } from '../../flows/strategy.ts';
import type { Db } from '../../db/db.ts';
import { NO_IDENTITY, recordSecurityEvent } from '../../db/security-events.ts';
import { sessionIdentifier } from '../../sessions/current.ts';
import { errors } from '../../errors/identity-error.ts';
import { normalizeEmail } from '../../identities/repo.ts';
import { MAX_PASSWORD_BYTES } from '../../password/policy.ts';
import { needsRehash } from '../../password/hasher.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { admitAccountAttempt } from '../../throttle/attempts.ts';
import { lockoutNotice } from '../../throttle/lockout-notice.ts';
import { messages } from '../../ui/messages.ts';
import { ssoEnforcedRefusal, ssoRequiredRefusal } from '../oidc/enforcement.ts';
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
  // SSO-enforcing organisations: refused by the address's domain, before any lookup or hash.
  const sso = await ssoEnforcedRefusal(ctx.service, identifier);
  if (sso)
    return { type: 'flow_updated', messages: [{ pointer: '#/', message: sso }], values: values(identifier) };

  const { service, now } = ctx;
  const key = normalizeIdentifier(identifier);
  // Admitted or refused atomically BEFORE the hash is checked (per IP, then per account), in the
  // statement that also reads the credential: parallel attempts cannot all pass a check that none
  // of them has counted yet. Known and unknown identifiers cost the same statement.
  const attempt = await admitAccountAttempt(service.db, {
    key,
    now,
    policy: service.config.lockout,
    ip: {
      address: ctx.client.ip,
      budget: { limit: service.config.ipLimit.failures, windowMs: service.config.ipLimit.windowMs },
    },
    read: credentialOf(key),
  });
  const found = attempt.read;
  const identityId = found?.identity_id ?? undefined;
  // Every failed sign-in is a security event. An unknown address is filed under no identity (the nil
  // subject, never a member's, so no console lists it): known and unknown addresses cost the same
  // write, and the typed identifier is not stored (it may be a mistyped password).
  const subjectId = identityId ?? NO_IDENTITY;
  const failed = (reason: string) => (trx: Db) =>
    recordSecurityEvent(trx, service, {
      type: 'signin.failed',
      subjectId,
      ...(identityId ? {} : { actor: { kind: 'person' as const, id: null } }),
      client: ctx.client,
      details: { method: 'password', reason: identityId ? reason : 'unknown_identifier' },
      at: now,
    });
  if (attempt.refused === 'ip') {
    await failed('too_many_requests')(service.db);
    return { type: 'error', error: errors.tooManyRequests(attempt.retryAfterSec!) };
  }
  if (attempt.refused) return { ...invalid, commit: failed('locked') };

  const credential = found?.credential_id
    ? { id: found.credential_id, config: found.config ?? {} }
    : undefined;
  const hashed =
    typeof credential?.config.hashed_password === 'string' ? credential.config.hashed_password : undefined;
  let ok: boolean;
  try {
    ok = hashed
      ? await service.passwords.verify(hashed, password)
      : await service.passwords.verifyDummy(password);
  } catch (e) {
    await attempt.giveBack(); // an overloaded pool (503) checked nothing
    throw e;
  }

  const succeeded = ok && !!identityId && !!hashed && found?.state === 'active';
  await attempt.settle(succeeded);
  if (!succeeded) {
    // When this failure started a lockout, the owner of an existing account is told by mail (unknown
    // addresses get the same answer and no mail).
    const owner = identityId && found?.state === 'active' ? (found?.identifier ?? undefined) : undefined;
    const notice = lockoutNotice(service, attempt, key, owner, 'password').commit;
    const reason = !hashed ? 'no_password' : ok ? 'inactive' : 'invalid_credentials';
    return {
      ...invalid,
      async commit(trx) {
        await notice?.(trx);
        await failed(reason)(trx);
        if (attempt.lockStartedUntil)
          await recordSecurityEvent(trx, service, {
            type: 'account.locked',
            subjectId,
            actor: { kind: 'system', id: null },
            client: ctx.client,
            details: { until: attempt.lockStartedUntil.toISOString(), method: 'password' },
            at: now,
          });
      },
    };
  }
  // The password was right: now the person's organisation decides (issue 31, item 4). A member of
  // an organisation that enforces SSO is refused whatever address the account has now; only someone
  // who knows the password learns it.
  const required = await ssoRequiredRefusal(service, identityId);
  if (required)
    return {
      type: 'flow_updated',
      messages: [{ pointer: '#/', message: required }],
      values: values(identifier),
      commit: failed('sso_required'),
    };
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

interface CredentialRead extends Record<string, unknown> {
  identity_id: string | null;
  /** The address the identifier names (where a lockout notice goes). */
  identifier: string | null;
  state: string | null;
  credential_id: string | null;
  config: Record<string, unknown> | null;
}

/** The password credential of the identifier with its identity's state (at most one row). */
function credentialOf(key: string) {
  return sql<CredentialRead>`
    select ci.identity_id, ci.identifier, i.state, c.id as credential_id, c.config
    from identity_credential_identifiers ci
    join identity_identities i on i.id = ci.identity_id
    left join identity_credentials c on c.identity_id = ci.identity_id and c.type = 'password'
    where ci.type = 'password' and ci.identifier = ${normalizeEmail(key)}`;
}
