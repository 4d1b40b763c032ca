import { randomUUID } from 'node:crypto';
import { renderWebhookDisabledNotice } from '@acme/mail';
import { personLocale } from '../users/locale.ts';
import { OutboundError, postOutbound } from '@acme/service-kit/outbound';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { publishEvents, readFeed } from '../feed/feed.ts';
import { relayIdentityEvents } from '../feed/identity-relay.ts';
import { shownUrl, signingSecrets, WEBHOOK_FAILURE_TEXT, webhookPolicy } from './endpoints.ts';
import { webhookTypeOf } from './event-types.ts';
import { webhookHeaders } from './signing.ts';

/**
 * Webhook delivery (issue 35). The organisation's event feed is the transactional outbox: an event
 * is in it only if the change it records committed. The fan-out follows the feed (its position in
 * `feed_followers`, 'webhooks', moved in the transaction that queues the deliveries, under that
 * row's lock) and queues one delivery per subscribed active endpoint. Deliveries are claimed with
 * `FOR UPDATE SKIP LOCKED` and leased by moving their next attempt past the lease, so two
 * instances on one database never make the same attempt; a claim whose instance died is retried
 * when its lease ends (at least once; receivers de-duplicate by `webhook-id`).
 */

/** Retries go on this long after an event was queued (or redelivered); then it is abandoned. */
export const RETRY_WINDOW_MS = 24 * 3600_000;
/** An endpoint whose deliveries have failed this long without one success is disabled. */
const DISABLE_AFTER_MS = 24 * 3600_000;
const RETRY_BASE_MS = 5_000;
const RETRY_CAP_MS = 4 * 3600_000;
/** A claimed attempt's lease: well past the 5 s time-out. */
const LEASE_MS = 60_000;
const CLAIM_BATCH = 20;
const FANOUT_BATCH = 500;

/** The delay before the next attempt after `attempts` failed: 5 s × 4ⁿ up to 4 h, with jitter (50–100 %). */
export function webhookRetryDelayMs(attempts: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 20));
  const delay = Math.min(RETRY_BASE_MS * 4 ** exponent, RETRY_CAP_MS);
  return Math.round(delay * (0.5 + random() * 0.5));
}

/** Queues deliveries for the events published since the last run; returns how many events it read. */
async function fanOut(ctx: UsersContext): Promise<number> {
  await publishEvents(ctx.db);
  return ctx.db.transaction().execute(async (trx) => {
    const follower = await trx
      .selectFrom('feed_followers')
      .select('position')
      .where('name', '=', 'webhooks')
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!follower) return 0;
    const rows = await readFeed(trx, { after: BigInt(follower.position), limit: FANOUT_BATCH });
    if (rows.length === 0) return 0;
    const organisations = [...new Set(rows.map((r) => r.event.organisationId))];
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'organisation_id', 'event_types'])
      .where('organisation_id', 'in', organisations)
      .where('state', '=', 'active')
      .execute();
    const now = ctx.clock.now();
    const deliveries = rows.flatMap(({ event }) => {
      const type = webhookTypeOf(event.type, event.details);
      if (type === null) return [];
      const body = JSON.stringify({
        type,
        timestamp: event.occurredAt,
        data: { ...event, sourceType: event.type },
      });
      return endpoints
        .filter((e) => e.organisation_id === event.organisationId)
        .filter((e) => e.event_types.length === 0 || e.event_types.includes(type))
        .map((e) => ({
          id: randomUUID(),
          endpoint_id: e.id,
          event_id: event.id,
          event_type: type,
          body,
          status: 'pending' as const,
          next_attempt_at: now,
          retry_until: new Date(now.getTime() + RETRY_WINDOW_MS),
          created_at: now,
        }));
    });
    if (deliveries.length > 0)
      await trx
        .insertInto('webhook_deliveries')
        .values(deliveries)
        .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
        .execute();
    await trx
      .updateTable('feed_followers')
      .set({ position: rows.at(-1)!.seq.toString() })
      .where('name', '=', 'webhooks')
      .execute();
    return rows.length;
  });
}

interface Claimed {
  id: string;
  endpoint_id: string;
  event_id: string;
  body: string;
  attempts: number;
  retry_until: Date;
}

/** Claims due deliveries of active endpoints: each moves past its lease in the claiming statement. */
async function claimDue(db: Kysely<UsersDb>, now: Date): Promise<Claimed[]> {
  const leased = new Date(now.getTime() + LEASE_MS);
  const result = await sql<Claimed>`
    update webhook_deliveries set next_attempt_at = ${leased}, attempts = attempts + 1
    where id in (
      select d.id from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      where d.status in ('pending', 'failed') and d.next_attempt_at <= ${now} and e.state = 'active'
      order by d.next_attempt_at
      limit ${CLAIM_BATCH}
      for update of d skip locked
    )
    returning id, endpoint_id, event_id, body, attempts, retry_until`.execute(db);
  return result.rows;
}

/** One attempt: the receiver's status, or why there was none. */
async function attempt(
  ctx: UsersContext,
  delivery: Claimed,
): Promise<{ ok: boolean; status: number | null; error: string | null }> {
  const endpoint = await ctx.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('id', '=', delivery.endpoint_id)
    .executeTakeFirst();
  if (!endpoint) return { ok: false, status: null, error: 'The endpoint was removed.' };
  const now = ctx.clock.now();
  try {
    const status = await postOutbound(endpoint.url, webhookPolicy(ctx), {
      headers: webhookHeaders(signingSecrets(ctx, endpoint, now), delivery.event_id, now, delivery.body),
      body: delivery.body,
    });
    if (status >= 200 && status < 300) return { ok: true, status, error: null };
    return { ok: false, status, error: `The receiver answered ${status}.` };
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return { ok: false, status: error.status ?? null, error: WEBHOOK_FAILURE_TEXT[error.reason] };
  }
}

/** Records an attempt's outcome, and disables an endpoint that has failed for 24 hours. */
async function settle(
  ctx: UsersContext,
  delivery: Claimed,
  outcome: { ok: boolean; status: number | null; error: string | null },
): Promise<void> {
  const now = ctx.clock.now();
  const next = new Date(now.getTime() + webhookRetryDelayMs(delivery.attempts));
  const giveUp = !outcome.ok && next > new Date(delivery.retry_until);
  await ctx.db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.ok ? 'delivered' : giveUp ? 'abandoned' : 'failed',
      last_response_status: outcome.status,
      last_error: outcome.error,
      last_attempt_at: now,
      next_attempt_at: outcome.ok || giveUp ? null : next,
    })
    .where('id', '=', delivery.id)
    .execute();
  if (outcome.ok) {
    await ctx.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', delivery.endpoint_id)
      .where('failing_since', 'is not', null)
      .execute();
    return;
  }
  await ctx.db
    .updateTable('webhook_endpoints')
    .set({ failing_since: now })
    .where('id', '=', delivery.endpoint_id)
    .where('failing_since', 'is', null)
    .execute();
  await disableIfFailingTooLong(ctx, delivery.endpoint_id, now);
}

const DISABLED_REASON = 'Every delivery failed for 24 hours; the endpoint was disabled.';

async function disableIfFailingTooLong(ctx: UsersContext, endpointId: string, now: Date): Promise<void> {
  const failingSince = new Date(now.getTime() - DISABLE_AFTER_MS);
  const due = await ctx.db
    .selectFrom('webhook_endpoints')
    .select('organisation_id')
    .where('id', '=', endpointId)
    .where('state', '=', 'active')
    .where('failing_since', '<=', failingSince)
    .executeTakeFirst();
  if (!due) return;
  // Each admin reads the notice in their own language (English when the identity service does not
  // answer), asked before the transaction: no row stays locked while the identity service answers.
  const admins = await ctx.db
    .selectFrom('users')
    .select(['email', 'identity_id'])
    .where('organisation_id', '=', due.organisation_id)
    .where('role', '=', 'org-admin')
    .where('deactivated_at', 'is', null)
    .execute();
  const locales = await Promise.all(
    admins.map(async (a) => (await personLocale(ctx, a.identity_id)) ?? 'en'),
  );
  await ctx.db.transaction().execute(async (trx) => {
    const disabled = await trx
      .updateTable('webhook_endpoints')
      .set({ state: 'disabled', disabled_reason: DISABLED_REASON, updated_at: now })
      .where('id', '=', endpointId)
      .where('state', '=', 'active')
      .where('failing_since', '<=', failingSince)
      .returning(['organisation_id', 'url'])
      .executeTakeFirst();
    if (!disabled) return;
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'abandoned', next_attempt_at: null })
      .where('endpoint_id', '=', endpointId)
      .where('status', 'in', ['pending', 'failed'])
      .execute();
    for (const [i, admin] of admins.entries()) {
      const mail = renderWebhookDisabledNotice({
        appName: ctx.config.appName,
        url: shownUrl(disabled.url),
        locale: locales[i]!,
      });
      await ctx.mailer.enqueue({ to: admin.email, ...mail }, trx);
    }
  });
}

/** Makes the due attempts; returns how many it made. */
async function deliverDue(ctx: UsersContext): Promise<number> {
  const claimed = await claimDue(ctx.db, ctx.clock.now());
  await Promise.all(claimed.map(async (d) => settle(ctx, d, await attempt(ctx, d))));
  return claimed.length;
}

/** One round: relay the identity service's events, publish, fan out, deliver what is due. */
export async function runWebhookRound(ctx: UsersContext, onError: (error: unknown) => void): Promise<void> {
  try {
    while ((await relayIdentityEvents(ctx)) > 0);
  } catch (error) {
    onError(error);
  }
  while ((await fanOut(ctx)) > 0);
  while ((await deliverDue(ctx)) > 0);
}

/** Runs rounds every WEBHOOK_POLL_MS until stopped. */
export function startWebhookWorker(
  ctx: UsersContext,
  onError: (error: unknown) => void,
): { stop(): Promise<void> } {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const loop = () => {
    if (stopped) return;
    running = runWebhookRound(ctx, onError)
      .catch(onError)
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, ctx.config.webhooks.pollMs);
      });
  };
  timer = setTimeout(loop, ctx.config.webhooks.pollMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
