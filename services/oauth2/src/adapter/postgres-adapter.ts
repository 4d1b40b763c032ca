import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { sql, type Database } from '@acme/db';
import type { RawBuilder } from 'kysely';
import type { Clock } from '@acme/db/clock';
import { deleteInBatches } from '@acme/db/batched-delete';
import { requestState, type StoredConsent } from '../request-state.ts';

/**
 * oidc-provider storage in one PostgreSQL table, `oauth2_models`.
 *
 * - `consume` is one atomic `update … where consumed_at is null returning`. A lost race on an
 *   authorization code or a device code fails the request (`invalid_grant`): a code yields tokens
 *   at most once.
 * - Refresh-token grace window: for `graceSeconds` after a refresh token was first consumed,
 *   `find` reports it as not consumed, so a second tab refreshing at the same moment succeeds.
 *   Past the window the library sees `consumed` and revokes the whole grant (reuse detection).
 * - Interactions are soft-deleted (`consumed_at` set) so that the admin API can answer 410
 *   for a challenge that was already handled.
 * - Finding a code or refresh token also reads its grant in the same query and keeps it for the
 *   rest of that request only (the token endpoint reads the grant right after): one round trip
 *   less per token request, no state kept between requests.
 */

export interface AdapterContext {
  db: Database;
  clock: Clock;
  graceSeconds: number;
}

interface StoredRecord {
  payload: AdapterPayload;
  consumedAt: number | undefined;
}

const GRACE_MODELS = new Set(['RefreshToken']);
/** Written once per token request, with the rest of its writes (token endpoint only). */
const DEFERRED_MODELS = new Set(['AuthorizationCode', 'RefreshToken']);
/** Codes that yield tokens once: their consumption gates the token request's writes. */
const ONE_TIME_CODES: Record<string, string> = {
  AuthorizationCode: 'authorization code',
  DeviceCode: 'device code',
};
const GRANT_BEARING_MODELS = new Set(['AuthorizationCode', 'RefreshToken']);

function takeRequestGrant(grantId: string): AdapterPayload | null | undefined {
  const grants = requestState()?.grants;
  if (!grants?.has(grantId)) return undefined;
  const payload = grants.get(grantId);
  grants.delete(grantId);
  return payload;
}

const SOFT_DELETE_MODELS = new Set(['Interaction']);

interface Row {
  payload: AdapterPayload;
  consumed_ms: number | null;
}

class PostgresAdapter implements Adapter {
  readonly model: string;
  readonly #ctx: AdapterContext;

  constructor(model: string, ctx: AdapterContext) {
    this.model = model;
    this.#ctx = ctx;
  }

  get #db() {
    return this.#ctx.db.kysely;
  }

  #now(): Date {
    return this.#ctx.clock.now();
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const now = this.#now();
    const expiresAt = expiresIn ? new Date(now.getTime() + expiresIn * 1000).toISOString() : null;
    const grantId = typeof payload.grantId === 'string' ? payload.grantId : null;
    const uid = typeof payload.uid === 'string' ? payload.uid : null;
    const userCode = typeof payload.userCode === 'string' ? payload.userCode : null;
    const write = (cond: RawBuilder<unknown>) => sql`
      insert into oauth2_models (model, id, payload, grant_id, uid, user_code, expires_at, created_at)
      select ${this.model}::text, ${id}::text, ${JSON.stringify(payload)}::jsonb, ${grantId}::text,
             ${uid}::text, ${userCode}::text, ${expiresAt}::timestamptz, ${now.toISOString()}::timestamptz
      where ${cond}
      on conflict (model, id) do update set
        payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
        user_code = excluded.user_code, expires_at = excluded.expires_at`;
    const state = requestState();
    if (state?.deferWrites && DEFERRED_MODELS.has(this.model)) {
      state.pending.push(write);
      return;
    }
    await write(sql`true`).execute(this.#db);
  }

  /** The unexpired row whose `column` is `value`, including soft-deleted or consumed ones. */
  async #findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<StoredRecord | undefined> {
    const row = (
      await sql<Row>`
        select payload, (extract(epoch from consumed_at) * 1000)::float8 as consumed_ms
        from oauth2_models
        where model = ${this.model} and ${sql.ref(column)} = ${value}
          and (expires_at is null or expires_at > ${this.#now().toISOString()}::timestamptz)
        limit 1`.execute(this.#db)
    ).rows[0];
    return row ? { payload: row.payload, consumedAt: row.consumed_ms ?? undefined } : undefined;
  }

  /** Every unexpired, unconsumed payload of this model (admin listings of small models only). */
  async listPayloads(limit = 1000): Promise<AdapterPayload[]> {
    const rows = await sql<{ payload: AdapterPayload }>`
      select payload from oauth2_models
      where model = ${this.model} and consumed_at is null
        and (expires_at is null or expires_at > ${this.#now().toISOString()}::timestamptz)
      limit ${limit}`.execute(this.#db);
    return rows.rows.map((r) => r.payload);
  }

  /** The stored row, including soft-deleted or consumed ones (admin API only). */
  async findRecord(id: string): Promise<StoredRecord | undefined> {
    return this.#findBy('id', id);
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.model === 'Grant') {
      const kept = takeRequestGrant(id);
      if (kept !== undefined) return kept ?? undefined;
    }
    if (GRANT_BEARING_MODELS.has(this.model)) return this.#findWithGrant(id);
    const record = await this.findRecord(id);
    return record ? this.#present(record) : undefined;
  }

  async #findWithGrant(id: string): Promise<AdapterPayload | undefined> {
    const now = this.#now().toISOString();
    const row = (
      await sql<
        Row & {
          grant_payload: AdapterPayload | null;
          cs_access_token: Record<string, unknown> | null;
          cs_id_token: Record<string, unknown> | null;
          cs_identity_session_id: string | null;
          cs_subject: string | null;
        }
      >`
        select m.payload, (extract(epoch from m.consumed_at) * 1000)::float8 as consumed_ms,
               g.payload as grant_payload,
               cs.access_token as cs_access_token, cs.id_token as cs_id_token,
               cs.identity_session_id as cs_identity_session_id, cs.subject as cs_subject
        from oauth2_models m
        left join oauth2_models g on g.model = 'Grant' and g.id = m.grant_id
          and (g.expires_at is null or g.expires_at > ${now}::timestamptz)
        left join oauth2_consent_sessions cs on cs.grant_id = m.grant_id
          and cs.expires_at > ${now}::timestamptz
        where m.model = ${this.model} and m.id = ${id}
          and (m.expires_at is null or m.expires_at > ${now}::timestamptz)`.execute(this.#db)
    ).rows[0];
    if (!row) return undefined;
    const grantId = row.payload.grantId;
    const state = requestState();
    if (state && typeof grantId === 'string') {
      state.grants.set(grantId, row.grant_payload);
      const consent: StoredConsent | null = row.cs_access_token
        ? {
            access_token: row.cs_access_token,
            id_token: row.cs_id_token ?? {},
            identitySessionId: row.cs_identity_session_id,
            subject: row.cs_subject,
          }
        : null;
      state.consents.set(grantId, consent);
    }
    return this.#present({ payload: row.payload, consumedAt: row.consumed_ms ?? undefined });
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const record = await this.#findBy('uid', uid);
    return record ? this.#present(record) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const record = await this.#findBy('user_code', userCode);
    return record ? this.#present(record) : undefined;
  }

  #present({ payload, consumedAt }: StoredRecord): AdapterPayload | undefined {
    if (consumedAt === undefined) return payload;
    if (SOFT_DELETE_MODELS.has(this.model)) return undefined;
    if (GRACE_MODELS.has(this.model) && this.#now().getTime() - consumedAt < this.#ctx.graceSeconds * 1000) {
      return payload;
    }
    return { ...payload, consumed: Math.floor(consumedAt / 1000) };
  }

  /**
   * Marks the record consumed once. Returns true when this call consumed it, false when it had
   * already been consumed.
   */
  async consumeOnce(id: string): Promise<boolean> {
    const rows = (
      await sql<{ id: string }>`
        update oauth2_models set consumed_at = ${this.#now().toISOString()}::timestamptz
        where model = ${this.model} and id = ${id} and consumed_at is null
        returning id`.execute(this.#db)
    ).rows;
    return rows.length === 1;
  }

  async consume(id: string): Promise<void> {
    const state = requestState();
    const oneTimeCode = ONE_TIME_CODES[this.model];
    if (state?.deferWrites && (DEFERRED_MODELS.has(this.model) || oneTimeCode)) {
      const consume = sql`
        update oauth2_models set consumed_at = ${this.#now().toISOString()}::timestamptz
        where model = ${this.model} and id = ${id} and consumed_at is null`;
      // A code (authorization or device) yields tokens once: the request's other writes depend on
      // consuming it, so of parallel requests that all read it unconsumed one gets tokens. A refresh
      // token's consumption is no gate (the grace window lets a second tab rotate it too).
      if (oneTimeCode) {
        state.gate = sql`${consume} returning id`;
        state.gateLabel = oneTimeCode;
      } else state.pending.push(() => consume);
      return;
    }
    const first = await this.consumeOnce(id);
    if (!first && oneTimeCode) throw new errors.InvalidGrant(`${oneTimeCode} already consumed`);
  }

  async destroy(id: string): Promise<void> {
    if (SOFT_DELETE_MODELS.has(this.model)) {
      await this.consumeOnce(id);
      return;
    }
    await sql`delete from oauth2_models where model = ${this.model} and id = ${id}`.execute(this.#db);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await sql`delete from oauth2_models where model = ${this.model} and grant_id = ${grantId}`.execute(
      this.#db,
    );
  }
}

export interface AdapterRegistry {
  factory: (model: string) => PostgresAdapter;
  get(model: string): PostgresAdapter;
}

/** One adapter instance per model, shared by oidc-provider and our own modules. */
export function createAdapterRegistry(ctx: AdapterContext): AdapterRegistry {
  const adapters = new Map<string, PostgresAdapter>();
  const get = (model: string) => {
    let adapter = adapters.get(model);
    if (!adapter) {
      adapter = new PostgresAdapter(model, ctx);
      adapters.set(model, adapter);
    }
    return adapter;
  };
  return { factory: get, get };
}

/** Rows per delete statement: a backlog of expired grants never becomes one long transaction. */
const CLEANUP_BATCH = 1000;

/**
 * Deletes rows past their expiry (run at start-up and periodically): oidc-provider's records,
 * consent sessions and device codes' polling records, in batches of `batchSize`, each its own
 * statement on the expiry index.
 */
export async function deleteExpired(db: Database, clock: Clock, batchSize = CLEANUP_BATCH): Promise<void> {
  const now = clock.now().toISOString();
  const where = sql`expires_at < ${now}::timestamptz`;
  await deleteInBatches(db.kysely, { table: 'oauth2_models', where, batchSize });
  await deleteInBatches(db.kysely, { table: 'oauth2_consent_sessions', where, batchSize });
  await deleteInBatches(db.kysely, { table: 'oauth2_device_polls', where, batchSize });
}

/**
 * Deletes grants nothing needs any more, with their consent sessions and their spent tokens: a grant
 * at least `idleHours` old none of whose codes or tokens is live (unexpired, and unconsumed, or a
 * refresh token inside its reuse grace window). Every sign-in makes a grant that would otherwise
 * stay for its whole lifetime (OAUTH2_GRANT_TTL) after its last refresh token went. The grants are
 * walked by age through their index, `batchSize` at a time; each batch deletes in one statement the
 * ones that are idle at that moment, so a refresh running meanwhile keeps its grant (its refresh
 * token is live until the new one is written). Returns how many grants went.
 */
export async function deleteIdleGrants(
  db: Database,
  clock: Clock,
  options: { idleHours: number; refreshGraceSeconds: number },
  batchSize = CLEANUP_BATCH,
): Promise<number> {
  const now = clock.now();
  const cutoff = new Date(now.getTime() - options.idleHours * 3600_000).toISOString();
  const graceStart = new Date(now.getTime() - options.refreshGraceSeconds * 1000).toISOString();
  let after: { createdAt: string; id: string } = { createdAt: '-infinity', id: '' };
  let total = 0;
  for (;;) {
    const page = (
      await sql<{ id: string; created_at: string }>`
        select id, created_at::text as created_at from oauth2_models
        where model = 'Grant' and created_at < ${cutoff}::timestamptz
          and (created_at, id) > (${after.createdAt}::timestamptz, ${after.id}::text)
        order by created_at, id
        limit ${sql.lit(batchSize)}`.execute(db.kysely)
    ).rows;
    if (page.length === 0) return total;
    const ids = page.map((r) => r.id);
    const last = page[page.length - 1]!;
    // The page again, as a range of the age index; each grant's live codes and tokens are looked up
    // one grant at a time on the grant index (a scalar subquery: never a join over the whole table).
    const idle = sql`model = 'Grant' and created_at < ${cutoff}::timestamptz
        and (created_at, id) > (${after.createdAt}::timestamptz, ${after.id}::text)
        and (created_at, id) <= (${last.created_at}::timestamptz, ${last.id}::text)
        and (select 1 from oauth2_models t
          where t.grant_id = oauth2_models.id and t.model <> 'Grant'
            and (t.expires_at is null or t.expires_at > ${now.toISOString()}::timestamptz)
            and (t.consumed_at is null
              or (t.model = 'RefreshToken' and t.consumed_at > ${graceStart}::timestamptz))
          limit 1) is null`;
    total += await deleteInBatches(db.kysely, { table: 'oauth2_models', where: idle, batchSize });
    // What the deleted grants leave behind: their consent sessions and spent tokens.
    for (const table of ['oauth2_consent_sessions', 'oauth2_models']) {
      const grantId = sql.ref(`${table}.grant_id`);
      const where = sql`${grantId} = any(${ids}::text[])
          and (select 1 from oauth2_models g where g.model = 'Grant' and g.id = ${grantId}) is null`;
      await deleteInBatches(db.kysely, { table, where, batchSize });
    }
    after = { createdAt: last.created_at, id: last.id };
    if (page.length < batchSize) return total;
  }
}
