import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, sendPage } from '../html.ts';
import {
  DEMO_M365_CLIENT_ID,
  DEMO_MARKETPLACE_CLIENT_SECRET,
  DEMO_PUBLISHER_TENANT_ID,
  findPerson,
  MARKETPLACE_APP_ID,
} from './directory.ts';
import type { Entra } from './entra.ts';

/**
 * Azure Marketplace stand-in: the SaaS Fulfillment API v2 (resolve, activate, get) for the
 * publisher's Entra app token, a buyer page that "purchases" the offer and opens the landing page
 * with `?token=`, and webhook calls to the publisher signed with an Entra app token.
 */

type SubscriptionStatus = 'PendingFulfillmentStart' | 'Subscribed' | 'Suspended' | 'Unsubscribed';
type WebhookAction = 'Unsubscribe' | 'Suspend' | 'Reinstate' | 'ChangePlan';
const WEBHOOK_ACTIONS: WebhookAction[] = ['Unsubscribe', 'Suspend', 'Reinstate', 'ChangePlan'];

export interface MarketplaceSubscription {
  id: string;
  publisherId: string;
  offerId: string;
  name: string;
  saasSubscriptionStatus: SubscriptionStatus;
  beneficiary: { emailId: string; objectId: string; tenantId: string; puid: string };
  purchaser: { emailId: string; objectId: string; tenantId: string; puid: string };
  planId: string;
  quantity: number;
  term: { startDate: string; endDate: string; termUnit: 'P1M' };
  autoRenew: boolean;
  isTest: boolean;
  isFreeTrial: boolean;
  allowedCustomerOperations: string[];
  sandboxType: 'None';
  lastModified: string;
  created: string;
  sessionMode: 'None';
}

/** An operation on a subscription (SaaS Fulfillment API v2 Get Operation). */
export interface MarketplaceOperation {
  id: string;
  activityId: string;
  subscriptionId: string;
  offerId: string;
  publisherId: string;
  planId: string;
  quantity: number;
  action: WebhookAction;
  timeStamp: string;
  status: 'NotStarted' | 'InProgress' | 'Succeeded' | 'Failed' | 'Conflict';
}

export interface MarketplaceOptions {
  entra: Entra;
  clock?: { now(): Date };
  /** The offer's landing page (MAGIC's `/account/m365-login`). */
  landingPageUrl?: string;
  /** The publisher's webhook endpoint. */
  webhookUrl?: string;
  /** The Entra app the offer's technical configuration names (our app). */
  publisherClientId?: string;
  publisherTenantId?: string;
  offerId?: string;
  plans?: { planId: string; displayName: string }[];
  /** How long a purchase token resolves (1 h). */
  tokenTtlMs?: number;
}

export interface Marketplace {
  base: string;
  register(app: FastifyInstance): void;
  subscriptions: Map<string, MarketplaceSubscription>;
  /** A purchase as the buyer page makes it: the subscription and its landing-page token. */
  purchase(
    email: string,
    planId?: string,
  ): { subscription: MarketplaceSubscription; token: string; landingUrl: string };
  /**
   * Sends a webhook for the subscription, as Microsoft does, after recording its operation (Get
   * Operation API); resolves to the publisher's status and what was posted.
   */
  sendWebhook(
    subscriptionId: string,
    action: WebhookAction,
    planId?: string,
  ): Promise<{ status: number; body: string; payload: Record<string, unknown> }>;
  /** Operations by id, as the Get Operation API answers them. */
  operations: Map<string, MarketplaceOperation>;
  setLandingPageUrl(url: string): void;
  setWebhookUrl(url: string): void;
}

const API_VERSION = '2018-08-31';

function apiError(reply: FastifyReply, status: number, code: string, message: string, target?: string) {
  return reply
    .code(status)
    .header('x-ms-requestid', randomUUID())
    .header('x-ms-correlationid', randomUUID())
    .send({ error: { code, message, ...(target ? { target } : {}), details: [] } });
}

/** The stand-in's settings and state, shared by its endpoints. */
interface MarketState {
  entra: Entra;
  clock: { now(): Date };
  publisherClientId: string;
  publisherTenantId: string;
  offerId: string;
  plans: { planId: string; displayName: string }[];
  tokenTtlMs: number;
  landingPageUrl: string;
  webhookUrl: string;
  subscriptions: Map<string, MarketplaceSubscription>;
  tokens: Map<string, { subscriptionId: string; expiresAt: number }>;
  operations: Map<string, MarketplaceOperation>;
  webhookLog: { at: string; subscriptionId: string; action: string; status: number }[];
}

function purchase(m: MarketState, email: string, planId = m.plans[0]!.planId) {
  const person = findPerson(m.entra.directory, email);
  if (!person) throw new Error(`No Entra user ${email}`);
  if (!m.plans.some((p) => p.planId === planId)) throw new Error(`No plan ${planId}`);
  const now = m.clock.now();
  const party = {
    emailId: person.user.email,
    objectId: person.user.objectId,
    tenantId: person.tenant.tenantId,
    puid: randomBytes(8).toString('hex').toUpperCase(),
  };
  const end = new Date(now.getTime() + 30 * 24 * 3600_000);
  const subscription: MarketplaceSubscription = {
    id: randomUUID(),
    publisherId: 'acme',
    offerId: m.offerId,
    name: `${person.tenant.displayName} ${m.plans.find((p) => p.planId === planId)!.displayName}`,
    saasSubscriptionStatus: 'PendingFulfillmentStart',
    beneficiary: party,
    purchaser: party,
    planId,
    quantity: 1,
    term: { startDate: now.toISOString(), endDate: end.toISOString(), termUnit: 'P1M' },
    autoRenew: true,
    isTest: true,
    isFreeTrial: false,
    allowedCustomerOperations: ['Delete', 'Update', 'Read'],
    sandboxType: 'None',
    lastModified: now.toISOString(),
    created: now.toISOString(),
    sessionMode: 'None',
  };
  m.subscriptions.set(subscription.id, subscription);
  // Standard base64: real marketplace tokens carry '+', '/' and '=', so the landing page must decode once.
  const token = randomBytes(60).toString('base64');
  m.tokens.set(token, { subscriptionId: subscription.id, expiresAt: now.getTime() + m.tokenTtlMs });
  const url = new URL(m.landingPageUrl);
  url.searchParams.set('token', token);
  return { subscription, token, landingUrl: url.toString() };
}

async function appToken(m: MarketState): Promise<string> {
  const res = await fetch(`${m.entra.base}/${m.publisherTenantId}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: MARKETPLACE_APP_ID,
      client_secret: DEMO_MARKETPLACE_CLIENT_SECRET,
      scope: `${m.publisherClientId}/.default`,
    }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!res.ok || !body.access_token)
    throw new Error(`Entra refused the marketplace's app token: ${res.status}`);
  return body.access_token;
}

async function sendWebhook(m: MarketState, subscriptionId: string, action: WebhookAction, planId?: string) {
  const subscription = m.subscriptions.get(subscriptionId);
  if (!subscription) throw new Error(`No subscription ${subscriptionId}`);
  const now = m.clock.now();
  if (action === 'ChangePlan') {
    const next =
      planId ?? m.plans.find((p) => p.planId !== subscription.planId)?.planId ?? subscription.planId;
    subscription.planId = next;
  } else if (action === 'Unsubscribe') subscription.saasSubscriptionStatus = 'Unsubscribed';
  else if (action === 'Suspend') subscription.saasSubscriptionStatus = 'Suspended';
  else if (action === 'Reinstate') subscription.saasSubscriptionStatus = 'Subscribed';
  subscription.lastModified = now.toISOString();
  const operation: MarketplaceOperation = {
    id: randomUUID(),
    activityId: randomUUID(),
    subscriptionId: subscription.id,
    offerId: subscription.offerId,
    publisherId: subscription.publisherId,
    planId: subscription.planId,
    quantity: subscription.quantity,
    action,
    timeStamp: now.toISOString(),
    status: action === 'ChangePlan' ? 'InProgress' : 'Succeeded',
  };
  if (m.operations.size >= 10_000) m.operations.delete(m.operations.keys().next().value!);
  m.operations.set(operation.id, operation);
  const payload = {
    ...operation,
    operationRequestSource: 'Azure',
    subscription,
    purchaseToken: null,
  };
  const res = await fetch(m.webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await appToken(m)}` },
    body: JSON.stringify(payload),
  });
  const text = await res.text();
  m.webhookLog.unshift({ at: now.toISOString(), subscriptionId, action, status: res.status });
  m.webhookLog.length = Math.min(m.webhookLog.length, 50);
  return { status: res.status, body: text, payload };
}

/** The caller must present an Entra app token issued to the offer's app for the marketplace API. */
async function authorizeApi(m: MarketState, request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  const query = (request.query ?? {}) as Record<string, unknown>;
  if (query['api-version'] !== API_VERSION) {
    apiError(
      reply,
      400,
      'BadArgument',
      `The api-version '${String(query['api-version'] ?? '')}' is not supported. Use ${API_VERSION}.`,
      'api-version',
    );
    return false;
  }
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  const claims = match ? await m.entra.verify(match[1]!) : undefined;
  if (!claims || claims.aud !== MARKETPLACE_APP_ID) {
    apiError(
      reply,
      401,
      'Unauthorized',
      'The authentication token is missing, invalid or not issued for the marketplace API.',
    );
    return false;
  }
  if (claims.azp !== m.publisherClientId || claims.tid !== m.publisherTenantId) {
    apiError(reply, 403, 'Forbidden', 'The application is not the publisher of this offer.');
    return false;
  }
  return true;
}

function resolveView(s: MarketplaceSubscription) {
  return {
    id: s.id,
    subscriptionName: s.name,
    offerId: s.offerId,
    planId: s.planId,
    quantity: s.quantity,
    subscription: s,
  };
}

function buyerPage(m: MarketState, reply: FastifyReply, message?: string) {
  const people = m.entra.directory.tenants.flatMap((t) =>
    t.users.map((u) => ({ tenant: t.displayName, ...u })),
  );
  const rows = [...m.subscriptions.values()]
    .reverse()
    .map(
      (
        s,
      ) => `<tr><td><code>${escapeHtml(s.id)}</code><br>${escapeHtml(s.name)}</td><td>${escapeHtml(s.purchaser.emailId)}</td><td>${escapeHtml(s.planId)}</td><td id="status-${escapeHtml(s.id)}">${escapeHtml(s.saasSubscriptionStatus)}</td><td>
<form method="post" action="/subscriptions/${escapeHtml(s.id)}/webhook">${WEBHOOK_ACTIONS.map((a) => `<button type="submit" name="action" value="${a}">${a}</button>`).join('')}</form></td></tr>`,
    )
    .join('');
  return sendPage(
    reply,
    'Microsoft Marketplace (development stand-in)',
    `<header>Microsoft Marketplace (development stand-in)</header>
<main>
${message ? `<p id="message" role="status">${escapeHtml(message)}</p>` : ''}
<h1>MAGIC for Microsoft 365</h1>
<form method="post" action="/buy" class="card" style="margin:0 0 24px">
<label for="email">Buy as (tenant user)</label>
<select id="email" name="email">${people.map((p) => `<option value="${escapeHtml(p.email)}">${escapeHtml(p.displayName)} &lt;${escapeHtml(p.email)}&gt; (${escapeHtml(p.tenant)}${p.azureRoles?.length ? `, ${escapeHtml(p.azureRoles.join('/'))}` : ''})</option>`).join('')}</select>
<label for="plan">Plan</label>
<select id="plan" name="planId">${m.plans.map((p) => `<option value="${escapeHtml(p.planId)}">${escapeHtml(p.displayName)}</option>`).join('')}</select>
<div><button type="submit" class="primary">Subscribe</button></div>
<p class="muted">Subscribe opens the offer's landing page: ${escapeHtml(m.landingPageUrl)}?token=…</p>
</form>
<h2>Subscriptions</h2>
<table><thead><tr><th>Subscription</th><th>Purchaser</th><th>Plan</th><th>Status</th><th>Webhook to the publisher</th></tr></thead><tbody>${rows}</tbody></table>
<h2>Webhook calls</h2>
<ul>${m.webhookLog.map((w) => `<li>${escapeHtml(w.at)} ${escapeHtml(w.action)} ${escapeHtml(w.subscriptionId)} → HTTP ${w.status}</li>`).join('')}</ul>
</main>`,
  );
}

/** The SaaS fulfillment API (v2) the publisher calls. */
function registerApi(app: FastifyInstance, m: MarketState): void {
  app.post('/api/saas/subscriptions/resolve', async (request, reply) => {
    if (!(await authorizeApi(m, request, reply))) return reply;
    const header = request.headers['x-ms-marketplace-token'];
    let token = typeof header === 'string' ? header.trim() : '';
    if (!token)
      return apiError(
        reply,
        400,
        'BadArgument',
        'The x-ms-marketplace-token header is missing.',
        'x-ms-marketplace-token',
      );
    if (token.includes('%')) {
      try {
        token = decodeURIComponent(token);
      } catch {
        return apiError(
          reply,
          400,
          'BadArgument',
          'The marketplace token could not be resolved.',
          'x-ms-marketplace-token',
        );
      }
    }
    const entry = m.tokens.get(token);
    const subscription = entry ? m.subscriptions.get(entry.subscriptionId) : undefined;
    if (!entry || !subscription || entry.expiresAt <= m.clock.now().getTime()) {
      return apiError(
        reply,
        400,
        'BadArgument',
        'The marketplace token is invalid or has expired.',
        'x-ms-marketplace-token',
      );
    }
    return reply.send(resolveView(subscription));
  });

  app.post('/api/saas/subscriptions/:id/activate', async (request, reply) => {
    if (!(await authorizeApi(m, request, reply))) return reply;
    const { id } = request.params as { id: string };
    const subscription = m.subscriptions.get(id);
    if (!subscription) return apiError(reply, 404, 'EntityNotFound', `Subscription ${id} was not found.`);
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (typeof body.planId !== 'string' || body.planId !== subscription.planId) {
      return apiError(reply, 400, 'BadArgument', 'The planId does not match the subscription.', 'planId');
    }
    if (subscription.saasSubscriptionStatus === 'Unsubscribed') {
      return apiError(reply, 400, 'BadArgument', 'The subscription is unsubscribed and cannot be activated.');
    }
    if (subscription.saasSubscriptionStatus === 'PendingFulfillmentStart') {
      subscription.saasSubscriptionStatus = 'Subscribed';
      subscription.lastModified = m.clock.now().toISOString();
    }
    return reply.code(200).send();
  });

  app.get('/api/saas/subscriptions/:id', async (request, reply) => {
    if (!(await authorizeApi(m, request, reply))) return reply;
    const { id } = request.params as { id: string };
    const subscription = m.subscriptions.get(id);
    if (!subscription) return apiError(reply, 404, 'EntityNotFound', `Subscription ${id} was not found.`);
    return reply.send(subscription);
  });

  // Get Operation: the publisher confirms a webhook's operation here before acting on it.
  app.get('/api/saas/subscriptions/:id/operations/:operationId', async (request, reply) => {
    if (!(await authorizeApi(m, request, reply))) return reply;
    const { id, operationId } = request.params as { id: string; operationId: string };
    const operation = m.operations.get(operationId);
    if (!operation || operation.subscriptionId !== id) {
      return apiError(reply, 404, 'EntityNotFound', `Operation ${operationId} was not found.`);
    }
    return reply.send(operation);
  });
}

/** The buyer page, webhook triggers and their JSON equivalents (development only). */
function registerBuyer(app: FastifyInstance, m: MarketState): void {
  // Buyer page and webhook triggers (development only).
  app.get('/', async (_request, reply) => buyerPage(m, reply));
  app.post('/buy', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const person = typeof body.email === 'string' ? findPerson(m.entra.directory, body.email) : undefined;
    if (!person) return buyerPage(m, reply.code(400), 'Choose a tenant user.');
    if (!person.user.azureRoles?.some((r) => r === 'Owner' || r === 'Contributor')) {
      return buyerPage(
        m,
        reply.code(403),
        `${person.user.email} cannot buy: an Owner or Contributor of the Azure subscription must subscribe.`,
      );
    }
    const planId = typeof body.planId === 'string' ? body.planId : undefined;
    if (planId && !m.plans.some((p) => p.planId === planId))
      return buyerPage(m, reply.code(400), 'Unknown plan.');
    const { landingUrl } = purchase(m, person.user.email, planId);
    return reply.redirect(landingUrl, 303);
  });
  app.post('/subscriptions/:id/webhook', async (request, reply) => {
    const { id } = request.params as { id: string };
    const body = (request.body ?? {}) as Record<string, unknown>;
    const action = WEBHOOK_ACTIONS.find((a) => a === body.action);
    if (!action || !m.subscriptions.has(id))
      return buyerPage(m, reply.code(400), 'Unknown subscription or action.');
    try {
      const result = await sendWebhook(
        m,
        id,
        action,
        typeof body.planId === 'string' ? body.planId : undefined,
      );
      return buyerPage(m, reply, `${action} sent: the publisher answered HTTP ${result.status}.`);
    } catch (err) {
      return buyerPage(m, reply.code(502), `${action} could not be delivered: ${(err as Error).message}`);
    }
  });

  // JSON equivalents for tests.
  app.post('/_dev/purchases', async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    try {
      const result = purchase(
        m,
        String(body.email ?? ''),
        typeof body.planId === 'string' ? body.planId : undefined,
      );
      return reply.send({
        subscriptionId: result.subscription.id,
        token: result.token,
        landingUrl: result.landingUrl,
      });
    } catch (err) {
      return apiError(reply, 400, 'BadArgument', (err as Error).message);
    }
  });
  app.post('/_dev/subscriptions/:id/webhook', async (request, reply) => {
    const { id } = request.params as { id: string };
    const body = (request.body ?? {}) as Record<string, unknown>;
    const action = WEBHOOK_ACTIONS.find((a) => a === body.action);
    if (!action || !m.subscriptions.has(id))
      return apiError(reply, 400, 'BadArgument', 'Unknown subscription or action.');
    const result = await sendWebhook(
      m,
      id,
      action,
      typeof body.planId === 'string' ? body.planId : undefined,
    );
    return reply.send({ status: result.status, body: result.body });
  });
}

export function createMarketplace(options: MarketplaceOptions): Marketplace {
  const m: MarketState = {
    entra: options.entra,
    clock: options.clock ?? { now: () => new Date() },
    publisherClientId: options.publisherClientId ?? DEMO_M365_CLIENT_ID,
    publisherTenantId: options.publisherTenantId ?? DEMO_PUBLISHER_TENANT_ID,
    offerId: options.offerId ?? 'magic-saas',
    plans: options.plans ?? [
      { planId: 'magic-team', displayName: 'MAGIC Team' },
      { planId: 'magic-enterprise', displayName: 'MAGIC Enterprise' },
    ],
    tokenTtlMs: options.tokenTtlMs ?? 3600_000,
    landingPageUrl: options.landingPageUrl ?? 'http://localhost:4001/account/m365-login',
    webhookUrl: options.webhookUrl ?? 'http://localhost:4455/m365/marketplace/webhook',
    subscriptions: new Map(),
    tokens: new Map(),
    operations: new Map(),
    webhookLog: [],
  };
  return {
    base: '',
    register(app) {
      registerApi(app, m);
      registerBuyer(app, m);
    },
    subscriptions: m.subscriptions,
    operations: m.operations,
    purchase: (email, planId) => purchase(m, email, planId),
    sendWebhook: (subscriptionId, action, planId) => sendWebhook(m, subscriptionId, action, planId),
    setLandingPageUrl: (url) => {
      m.landingPageUrl = url;
    },
    setWebhookUrl: (url) => {
      m.webhookUrl = url;
    },
  };
}
