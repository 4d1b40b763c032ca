import { sql } from 'kysely';
import type { Db } from '../../db/db.ts';
import type { FlowRow } from '../../db/schema.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy, StrategyContext } from '../../flows/strategy.ts';
import { sessionIdentifier } from '../../sessions/current.ts';
import { errors } from '../../errors/identity-error.ts';
import { normalizeEmail } from '../../identities/repo.ts';
import { MAX_PASSWORD_BYTES } from '../../password/policy.ts';
import { needsRehash } from '../../password/hasher.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import {
  ipRetryAfter,
  lockRunning,
  recordAccountFailure,
  recordIpFailure,
  resetAccount,
} from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import { ssoEnforcedRefusal } from '../oidc/enforcement.ts';
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
  const ip = ctx.client.ip;
  const key = normalizeIdentifier(identifier);
  const found = await readPasswordLogin(service.db, ip, key);
  const retryAfter = ipRetryAfter(found.ipCounter, now, service.config.ipLimit);
  if (retryAfter > 0) return { type: 'error', error: errors.tooManyRequests(retryAfter) };
  if (lockRunning(found.lockedUntil, now)) return invalid;

  const { identityId, credential } = found;
  const hashed =
    typeof credential?.config.hashed_password === 'string' ? credential.config.hashed_password : undefined;
  const ok = hashed
    ? await service.passwords.verify(hashed, password)
    : await service.passwords.verifyDummy(password);

  if (!ok || !identityId || !hashed || found.identityState !== 'active') {
    await recordAccountFailure(service.db, key, now, service.config.lockout);
    await recordIpFailure(service.db, ip, now, service.config.ipLimit.windowMs);
    return invalid;
  }
  if (found.accountCounted) await resetAccount(service.db, key);
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

interface PasswordLoginRead {
  /** The IP's failure counter, if it has one. */
  ipCounter: { window_start: Date; failures: number } | undefined;
  /** Whether the identifier has a failure counter (a success then clears it). */
  accountCounted: boolean;
  lockedUntil: Date | null;
  identityId: string | undefined;
  identityState: string | undefined;
  credential: { id: string; config: Record<string, unknown> } | undefined;
}

/**
 * Everything a password attempt reads, in one statement: the IP's and the identifier's failure
 * counters, and the password credential of the identifier with its identity's state. Known and
 * unknown identifiers cost the same statement (the enumeration timing check measures it).
 */
async function readPasswordLogin(db: Db, ip: string, key: string): Promise<PasswordLoginRead> {
  const { rows } = await sql<{
    ip_window_start: Date | null;
    ip_failures: number | null;
    counted: boolean;
    locked_until: Date | null;
    identity_id: string | null;
    state: string | null;
    credential_id: string | null;
    config: Record<string, unknown> | null;
  }>`
    select ip.window_start as ip_window_start, ip.failures as ip_failures,
      lt.identifier is not null as counted, lt.locked_until,
      ci.identity_id, i.state, c.id as credential_id, c.config
    from (select 1) as one
    left join identity_ip_throttle ip on ip.ip = ${ip}
    left join identity_login_throttle lt on lt.identifier = ${key}
    left join identity_credential_identifiers ci
      on ci.type = 'password' and ci.identifier = ${normalizeEmail(key)}
    left join identity_identities i on i.id = ci.identity_id
    left join identity_credentials c on c.identity_id = ci.identity_id and c.type = 'password'`.execute(db);
  const r = rows[0]!;
  const date = (v: Date | string | null) => (v === null ? null : new Date(v));
  return {
    ipCounter:
      r.ip_window_start === null
        ? undefined
        : { window_start: date(r.ip_window_start)!, failures: r.ip_failures! },
    accountCounted: r.counted,
    lockedUntil: date(r.locked_until),
    identityId: r.identity_id ?? undefined,
    identityState: r.state ?? undefined,
    credential: r.credential_id === null ? undefined : { id: r.credential_id, config: r.config ?? {} },
  };
}
