import { randomUUID } from 'node:crypto';
import { checkOutboundHost, OutboundError, type OutboundPolicy } from '@acme/service-kit/outbound';
import type {
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointPatch,
  WebhookEndpointWithSecret,
  WebhookEventType,
} from '@acme/users-contract/webhooks';
import type { Selectable } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import { newSigningSecret } from './signing.ts';

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
  if (!row) throw new AppError('WEBHOOK_NOT_FOUND', 'No webhook endpoint of this organisation has this id.');
  return row;
}

/**
 * Adds an endpoint with a new secret (returned once). The organisation's row is locked while its
 * endpoints are counted, so parallel calls cannot pass the limit together.
 */
export async function createEndpoint(
  ctx: UsersContext,
  organisationId: string,
  input: WebhookEndpointInput,
): Promise<WebhookEndpointWithSecret> {
  const url = await checkEndpointUrl(ctx, input.url);
  const secret = newSigningSecret();
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
    const { count } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('organisation_id', '=', organisationId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= ctx.config.webhooks.maxEndpoints) {
      throw new AppError(
        'WEBHOOK_LIMIT_REACHED',
        `An organisation may have at most ${ctx.config.webhooks.maxEndpoints} webhook endpoints.`,
      );
    }
    return trx
      .insertInto('webhook_endpoints')
      .values({
        id,
        organisation_id: organisationId,
        url,
        event_types: JSON.stringify([...new Set(input.eventTypes ?? [])]),
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
  });
  return { endpoint: toWireEndpoint(row), secret };
}

/** Changes the URL, the types or the state (`active` again also clears a disabled endpoint's reason). */
export async function updateEndpoint(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
  patch: WebhookEndpointPatch,
): Promise<WebhookEndpoint> {
  await findEndpoint(ctx, organisationId, endpointId);
  const url = patch.url === undefined ? undefined : await checkEndpointUrl(ctx, patch.url);
  const row = await ctx.db
    .updateTable('webhook_endpoints')
    .set({
      ...(url === undefined ? {} : { url }),
      ...(patch.eventTypes === undefined
        ? {}
        : { event_types: JSON.stringify([...new Set(patch.eventTypes)]) }),
      ...(patch.state === undefined
        ? {}
        : {
            state: patch.state,
            disabled_reason: null,
            ...(patch.state === 'active' ? { failing_since: null } : {}),
          }),
      updated_at: ctx.clock.now(),
    })
    .where('id', '=', endpointId)
    .where('organisation_id', '=', organisationId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError('WEBHOOK_NOT_FOUND', 'No webhook endpoint of this organisation has this id.');
  return toWireEndpoint(row);
}

export async function deleteEndpoint(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
): Promise<void> {
  const gone = await ctx.db
    .deleteFrom('webhook_endpoints')
    .where('id', '=', endpointId)
    .where('organisation_id', '=', organisationId)
    .executeTakeFirst();
  if (Number(gone.numDeletedRows) === 0)
    throw new AppError('WEBHOOK_NOT_FOUND', 'No webhook endpoint of this organisation has this id.');
}

/** A new secret (returned once); the old one signs beside it for 24 hours. */
export async function rotateEndpointSecret(
  ctx: UsersContext,
  organisationId: string,
  endpointId: string,
): Promise<WebhookEndpointWithSecret> {
  const current = await findEndpoint(ctx, organisationId, endpointId);
  const secret = newSigningSecret();
  const now = ctx.clock.now();
  const row = await ctx.db
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
  return { endpoint: toWireEndpoint(row), secret };
}
