import { randomUUID } from 'node:crypto';
import {
  checkOutboundHost,
  OutboundError,
  postOutbound,
  type OutboundFailure,
  type OutboundPolicy,
} from '@acme/service-kit/outbound';
import { WEBHOOK_TEST_TYPE } from '@acme/users-contract/webhooks';
import type {
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
  WebhookEventType,
} from '@acme/users-contract/webhooks';
import type { Selectable, Transaction } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { recordEvent, type EventOrigin, type SecurityEventType } from '../events/events.ts';
import { AppError } from '../http/errors.ts';
import { newSigningSecret, webhookHeaders } from './signing.ts';

/** Each attempt's time-out, fixed: a receiver should answer at once and work later. */
const WEBHOOK_TIMEOUT_MS = 5000;

/** How long the secret before a rotation still signs (beside the new one). */
const ROTATION_OVERLAP_MS = 24 * 3600_000;

type EndpointRow = Selectable<UsersDb['webhook_endpoints']>;

/** Who webhooks may reach: https only (plain http for the configured development hosts), no private address unless allowed. */
export function webhookPolicy(ctx: Pick<UsersContext, 'config'>): OutboundPolicy {
  return {
    httpHosts: ctx.config.webhooks.httpHosts,
    allowPrivate: ctx.config.webhooks.allowPrivate,
    timeoutMs: WEBHOOK_TIMEOUT_MS,
  };
}

/** Words for why an attempt failed or a URL was refused (the console shows them). */
export const WEBHOOK_FAILURE_TEXT: Record<OutboundError['reason'], string> = {
  invalid_url: 'The URL is malformed (or carries credentials or a fragment).',
  not_https: 'The URL must use https.',
  private_address: 'The URL names or resolves to a loopback, private or link-local address.',
  unreachable: 'The receiver could not be reached.',
  timeout: 'The receiver did not answer within 5 seconds.',
  too_large: 'The answer was too large.',
  redirect: 'The receiver answered with a redirect; redirects are not followed.',
  http_status: 'The receiver answered with an error status.',
  not_json: 'The answer was not JSON.',
};

/** The URL, refused with WEBHOOK_URL_REFUSED unless the policy lets webhooks reach it now. */
async function checkEndpointUrl(ctx: Pick<UsersContext, 'config'>, url: string): Promise<string> {
  try {
    return (await checkOutboundHost(url, webhookPolicy(ctx))).toString();
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw new AppError(
      'WEBHOOK_URL_REFUSED',
      WEBHOOK_FAILURE_TEXT[error.reason],
      {},
      { reason: error.reason },
    );
  }
}

/** A save refused because the test request failed: why, and the receiver's status when it answered. */
function testRefused(reason: OutboundFailure, status: number | undefined): AppError {
  const answered = status === undefined ? '' : ` (HTTP ${status})`;
  return new AppError(
    'WEBHOOK_URL_REFUSED',
    `The test request sent to the URL failed${answered}: ${WEBHOOK_FAILURE_TEXT[reason]} Saving needs a 2xx answer to it, at once and without a redirect.`,
    {},
    { reason },
  );
}

/**
 * At save, one signed `webhook.test` request to the URL, under the delivery's policy and time-out,
 * redirects not followed: a receiver that redirects, cannot be reached, does not answer in time or
 * answers other than 2xx is refused now rather than failing every delivery later.
 */
async function testReceiver(ctx: UsersContext, url: string, secrets: readonly string[]): Promise<void> {
  const now = ctx.clock.now();
  const body = JSON.stringify({ type: WEBHOOK_TEST_TYPE, timestamp: now.toISOString(), data: {} });
  let status: number;
  try {
    status = await postOutbound(url, webhookPolicy(ctx), {
      headers: webhookHeaders(secrets, randomUUID(), now, body),
      body,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw testRefused(error.reason, error.status);
  }
  if (status < 200 || status >= 300) throw testRefused('http_status', status);
}

/**
 * The URL as events and mails name it: without its query, which may carry the receiver's own token.
 */
export const shownUrl = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
};

const describeTypes = (types: readonly string[]) => (types.length === 0 ? '(all)' : types.join(' '));

/** Records an endpoint's change in the organisation's event log, in the change's transaction; never its secret. */
async function recordEndpointEvent(
  trx: Transaction<UsersDb>,
  origin: EventOrigin,
  row: EndpointRow,
  type: SecurityEventType,
  now: Date,
  details: Record<string, string> = {},
): Promise<void> {
  await recordEvent(
    trx,
    origin,
    {
      organisationId: row.organisation_id,
      type,
      subjectId: null,
      details: { endpointId: row.id, url: shownUrl(row.url), ...details },
    },
    now,
  );
}

async function countEndpoints(db: UsersContext['db'], organisationId: string): Promise<number> {
  const { count } = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('organisation_id', '=', organisationId)
    .executeTakeFirstOrThrow();
  return Number(count);
}

const notFound = () =>
  new AppError('WEBHOOK_NOT_FOUND', 'No webhook endpoint of this organisation has this id.');

function limitReached(ctx: UsersContext): AppError {
  return new AppError(
    'WEBHOOK_LIMIT_REACHED',
    `An organisation may have at most ${ctx.config.webhooks.maxEndpoints} webhook endpoints.`,
  );
}

export function toWireEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.event_types as WebhookEventType[],
    state: row.state,
    disabledReason: row.disabled_reason,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

const sealContext = (id: string) => `webhook endpoint ${id}`;

/** The secrets an attempt at `now` is signed with: the current one, and the previous during its overlap. */
export function signingSecrets(ctx: Pick<UsersContext, 'secretBox'>, row: EndpointRow, now: Date): string[] {
  const secrets = [ctx.secretBox.open(row.secret, sealContext(row.id))];
  if (
    row.previous_secret !== null &&
    row.previous_secret_until !== null &&
    new Date(row.previous_secret_until) > now
  )
    secrets.push(ctx.secretBox.open(row.previous_secret, sealContext(row.id)));
  return secrets;
}

export async function listEndpoints(ctx: UsersContext, organisationId: string): Promise<WebhookEndpoint[]> {
  const rows = await ctx.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toWireEndpoint);
}

export async function findEndpoint(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
): Promise<EndpointRow> {
  const row = await ctx.db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where('id', '=', endpointId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/**
 * Adds an endpoint with a new secret (returned once), once its receiver has answered the test
 * request. The organisation's row is locked while its endpoints are counted, so parallel calls
 * cannot pass the limit together (a first, unlocked count spares a full organisation the test).
 */
export async function createEndpoint(
  ctx: UsersContext,
  organisationId: string,
  input: WebhookEndpointInput,
  origin: EventOrigin,
): Promise<WebhookEndpointWithSecret> {
  const url = await checkEndpointUrl(ctx, input.url);
  if ((await countEndpoints(ctx.db, organisationId)) >= ctx.config.webhooks.maxEndpoints)
    throw limitReached(ctx);
  const secret = newSigningSecret();
  await testReceiver(ctx, url, [secret]);
  const id = randomUUID();
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const org = await trx
      .selectFrom('organisations')
      .select('id')
      .where('id', '=', organisationId)
      .forUpdate()
      .executeTakeFirst();
    if (!org) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
    if ((await countEndpoints(trx, organisationId)) >= ctx.config.webhooks.maxEndpoints)
      throw limitReached(ctx);
    const eventTypes = [...new Set(input.eventTypes ?? [])];
    const created = await trx
      .insertInto('webhook_endpoints')
      .values({
        id,
        organisation_id: organisationId,
        url,
        event_types: JSON.stringify(eventTypes),
        state: 'active',
        disabled_reason: null,
        secret: ctx.secretBox.seal(secret, sealContext(id)),
        previous_secret: null,
        previous_secret_until: null,
        failing_since: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordEndpointEvent(trx, origin, created, 'webhook.endpoint_created', now, {
      eventTypes: describeTypes(eventTypes),
    });
    return created;
  });
  return { endpoint: toWireEndpoint(row), secret };
}

/**
 * Changes the URL (once its receiver has answered the test request, signed with the endpoint's
 * secrets), the types or the state (`active` again also clears a disabled endpoint's reason); each
 * kind of change is an event.
 */
export async function updateEndpoint(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
  patch: WebhookEndpointPatch,
  origin: EventOrigin,
): Promise<WebhookEndpoint> {
  const current = await findEndpoint(ctx, organisationId, endpointId);
  const url = patch.url === undefined ? undefined : await checkEndpointUrl(ctx, patch.url);
  if (url !== undefined && url !== current.url)
    await testReceiver(ctx, url, signingSecrets(ctx, current, ctx.clock.now()));
  const eventTypes = patch.eventTypes === undefined ? undefined : [...new Set(patch.eventTypes)];
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpointId)
      .where('organisation_id', '=', organisationId)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw notFound();
    const after = await trx
      .updateTable('webhook_endpoints')
      .set({
        ...(url === undefined ? {} : { url }),
        ...(eventTypes === undefined ? {} : { event_types: JSON.stringify(eventTypes) }),
        ...(patch.state === undefined
          ? {}
          : {
              state: patch.state,
              disabled_reason: null,
              ...(patch.state === 'active' ? { failing_since: null } : {}),
            }),
        updated_at: now,
      })
      .where('id', '=', endpointId)
      .returningAll()
      .executeTakeFirstOrThrow();
    const changed: Record<string, string> = {};
    if (after.url !== before.url) changed.previousUrl = shownUrl(before.url);
    if (describeTypes(after.event_types) !== describeTypes(before.event_types)) {
      changed.previousEventTypes = describeTypes(before.event_types);
      changed.eventTypes = describeTypes(after.event_types);
    }
    if (Object.keys(changed).length > 0)
      await recordEndpointEvent(trx, origin, after, 'webhook.endpoint_changed', now, changed);
    if (after.state !== before.state)
      await recordEndpointEvent(
        trx,
        origin,
        after,
        after.state === 'paused' ? 'webhook.endpoint_paused' : 'webhook.endpoint_resumed',
        now,
        { previousState: before.state },
      );
    return after;
  });
  return toWireEndpoint(row);
}

export async function deleteEndpoint(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
  origin: EventOrigin,
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const gone = await trx
      .deleteFrom('webhook_endpoints')
      .where('id', '=', endpointId)
      .where('organisation_id', '=', organisationId)
      .returningAll()
      .executeTakeFirst();
    if (!gone) throw notFound();
    await recordEndpointEvent(trx, origin, gone, 'webhook.endpoint_deleted', ctx.clock.now());
  });
}

/** A new secret (returned once); the old one signs beside it for 24 hours. */
export async function rotateEndpointSecret(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
  origin: EventOrigin,
): Promise<WebhookEndpointWithSecret> {
  const secret = newSigningSecret();
  const now = ctx.clock.now();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', endpointId)
      .where('organisation_id', '=', organisationId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw notFound();
    const rotated = await trx
      .updateTable('webhook_endpoints')
      .set({
        secret: ctx.secretBox.seal(secret, sealContext(endpointId)),
        previous_secret: current.secret,
        previous_secret_until: new Date(now.getTime() + ROTATION_OVERLAP_MS),
        updated_at: now,
      })
      .where('id', '=', endpointId)
      .returningAll()
      .executeTakeFirstOrThrow();
    // The event says when the old secret stops signing; neither secret is in it.
    await recordEndpointEvent(trx, origin, rotated, 'webhook.secret_rotated', now, {
      previousSecretUntil: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
    });
    return rotated;
  });
  return { endpoint: toWireEndpoint(row), secret };
}
