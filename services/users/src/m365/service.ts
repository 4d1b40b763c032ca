import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { domainSchema, emailSchema } from '../http/schemas.ts';
import { notSubscribed, tokenClaimsFor } from '../claims/token-claims.ts';
import { createUser } from '../users/create-user.ts';
import { currentRequestId } from '@acme/service-kit/request-id';
import { recordEvent } from '../events/events.ts';
import type { GraphMe, GraphOrganization, MicrosoftClient, MicrosoftIdentity } from './microsoft.ts';

/**
 * Microsoft 365 sign-in and Azure Marketplace activation. The caller's Microsoft token (an ID token
 * from MSAL, or Teams' SSO token) is verified against its tenant's keys; Graph says who the person
 * and the tenant are (Graph's answer must match the verified token); the tenant maps to an
 * organisation and the person, by email, to one of its users.
 */

export interface M365Context extends UsersContext {
  microsoft: MicrosoftClient;
  agent: {
    /** Best effort; `bearer` is the caller's Microsoft token, which the agent service verifies too. */
    recordUnregisteredUser(bearer: string, email: string, name: string): Promise<void>;
  };
}

interface M365Caller {
  identity: MicrosoftIdentity;
  me: GraphMe;
  organization: GraphOrganization;
}

/** Verifies the bearer token, gets Graph's view (on-behalf-of when no Graph token came), cross-checks. */
async function identifyCaller(
  ctx: M365Context,
  bearer: string,
  graphAccessToken: string | undefined,
): Promise<M365Caller> {
  const identity = await ctx.microsoft.verifyUserToken(bearer);
  const graphToken =
    graphAccessToken ?? (await ctx.microsoft.graphTokenOnBehalfOf(bearer, identity.tenantId));
  const [me, organization] = await Promise.all([
    ctx.microsoft.me(graphToken),
    ctx.microsoft.organization(graphToken),
  ]);
  if (me.id !== identity.objectId || organization.id !== identity.tenantId) {
    throw new AppError('UNAUTHENTICATED', 'The Graph token does not belong to the signed-in user.');
  }
  return { identity, me, organization };
}

function emailOf(caller: M365Caller): string {
  const candidates = [caller.me.mail, caller.me.userPrincipalName, caller.identity.email];
  for (const candidate of candidates) {
    const parsed = emailSchema.safeParse(candidate ?? '');
    if (parsed.success) return parsed.data;
  }
  throw new AppError('UNAUTHENTICATED', 'The Microsoft account has no email address.');
}

async function organisationOfTenant(ctx: UsersContext, tenantId: string) {
  return ctx.db
    .selectFrom('organisation_m365_tenants')
    .innerJoin('organisations', 'organisations.id', 'organisation_m365_tenants.organisation_id')
    .select([
      'organisations.id as id',
      'organisations.products as products',
      'organisations.subscription_status as subscriptionStatus',
      'organisations.m365 as m365',
    ])
    .where('organisation_m365_tenants.tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/** `POST /m365/login`: our access token for a Microsoft 365 user of a subscribed organisation. */
export async function m365Login(
  ctx: M365Context,
  bearer: string,
  graphAccessToken: string | undefined,
  clientAddress: string,
): Promise<{ accessToken: string; expiresIn: number }> {
  const caller = await identifyCaller(ctx, bearer, graphAccessToken);
  const organisation = await organisationOfTenant(ctx, caller.identity.tenantId);
  if (!organisation || !organisation.m365 || organisation.subscriptionStatus !== 'subscribed') {
    throw notSubscribed(ctx);
  }
  const email = emailOf(caller);
  const user = await ctx.db
    .selectFrom('users')
    .select(['id'])
    .where('email', '=', email)
    .where('organisation_id', '=', organisation.id)
    .executeTakeFirst();
  if (!user) {
    // The agent service checks the same Microsoft token and keeps only the address it names.
    await ctx.agent.recordUnregisteredUser(
      bearer,
      caller.identity.email ?? email,
      caller.me.displayName ?? caller.identity.name ?? '',
    );
    throw new AppError(
      'UnauthorisedUserException',
      'You are not a user of your organisation in this product yet. Your request to join has been recorded.',
    );
  }
  // The same checks as every other sign-in method (active identity, linked user, subscribed).
  const { identityId, claims } = await tokenClaimsFor(ctx, {
    method: 'm365',
    userId: user.id,
    clientAddress,
  });
  return ctx.oauth2Admin.issueFederatedToken({
    subject: identityId,
    client_id: ctx.config.m365.oauth2ClientId,
    session: claims,
  });
}

export interface ActivationResult {
  organisationId: string;
  subscriptionId: string;
  planId: string;
  created: boolean;
}

/**
 * `POST /m365/marketplace/activate`: resolves the purchase token and acts on the marketplace's own
 * record of the subscription. Refused unless:
 * - the purchase belongs to the caller's tenant (MarketplaceTenantMismatchException);
 * - the caller is its purchaser: same Entra object id and tenant (MarketplaceNotPurchaserException),
 *   so that a colleague who replays the landing-page link gains nothing;
 * - the marketplace reports it PendingFulfillmentStart (then it is activated there) or Subscribed
 *   (already active there: recorded here without a second activation); Suspended or Unsubscribed
 *   stay so (MarketplaceSubscriptionInactiveException): the marketplace's state wins over a replay;
 * - the tenant's organisation is not subscribed already (OrganisationAlreadySubscribedException,
 *   a replay included: no second activation runs).
 * It creates the tenant's organisation if new (domains from Graph's verified domains), marks it
 * subscribed, and makes the purchaser its org-admin only when the activation created it or it has
 * no org-admin yet.
 */
export async function activateSubscription(
  ctx: M365Context,
  bearer: string,
  marketplaceToken: string,
  graphAccessToken: string | undefined,
): Promise<ActivationResult> {
  const caller = await identifyCaller(ctx, bearer, graphAccessToken);
  const purchase = await ctx.microsoft.resolvePurchase(marketplaceToken);
  const tenantId = caller.identity.tenantId;
  if (purchase.beneficiary.tenantId !== tenantId && purchase.purchaser.tenantId !== tenantId) {
    throw new AppError(
      'MarketplaceTenantMismatchException',
      "The purchase belongs to another organisation's Microsoft 365 tenant.",
    );
  }
  if (
    purchase.purchaser.objectId !== caller.identity.objectId ||
    purchase.purchaser.tenantId !== caller.identity.tenantId
  ) {
    throw new AppError(
      'MarketplaceNotPurchaserException',
      'Only the person who bought the subscription in the Azure Marketplace can activate it.',
    );
  }
  if (purchase.status !== 'PendingFulfillmentStart' && purchase.status !== 'Subscribed') {
    throw new AppError(
      'MarketplaceSubscriptionInactiveException',
      'The Azure Marketplace reports this subscription as suspended or cancelled: it cannot be activated.',
    );
  }

  const existing = await organisationOfTenant(ctx, tenantId);
  if (existing && existing.subscriptionStatus === 'subscribed') {
    throw new AppError(
      'OrganisationAlreadySubscribedException',
      'Your organisation already has a subscription. Please contact support.',
    );
  }

  if (purchase.status === 'PendingFulfillmentStart') {
    await ctx.microsoft.activatePurchase(purchase.id, purchase.planId, purchase.quantity);
  }

  const now = ctx.clock.now();
  let organisationId = existing?.id;
  let created = false;
  if (!organisationId) {
    organisationId = await createTenantOrganisation(ctx, caller, now);
    created = true;
  }
  const orgId = organisationId;
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('organisations')
      .set({ subscription_status: 'subscribed', m365: true })
      .where('id', '=', orgId)
      .execute();
    await trx
      .insertInto('marketplace_subscriptions')
      .values({
        id: purchase.id,
        organisation_id: orgId,
        tenant_id: tenantId,
        offer_id: purchase.offerId,
        plan_id: purchase.planId,
        quantity: purchase.quantity,
        status: 'Subscribed',
        purchaser_email: purchase.purchaser.emailId,
        activated_at: now,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({ status: 'Subscribed', plan_id: purchase.planId, updated_at: now }),
      )
      .execute();
    await recordEvent(
      trx,
      { actorKind: 'system', actorId: null, ip: null, requestId: currentRequestId() ?? null },
      {
        organisationId: orgId,
        type: 'subscription.changed',
        subjectId: null,
        details: { subscriptionId: purchase.id, status: 'Subscribed', planId: purchase.planId },
      },
      now,
    );
  });

  await seatPurchaser(ctx, caller, orgId, created);
  return { organisationId: orgId, subscriptionId: purchase.id, planId: purchase.planId, created };
}

/** A new organisation for the tenant; a concurrent activation that won the race is reused. */
async function createTenantOrganisation(ctx: M365Context, caller: M365Caller, now: Date): Promise<string> {
  const tenantId = caller.identity.tenantId;
  const domains = [
    ...new Set(
      caller.organization.verifiedDomains
        .map((d) => domainSchema.safeParse(d.name))
        .filter((r) => r.success)
        .map((r) => r.data),
    ),
  ];
  const taken = domains.length
    ? await ctx.db
        .selectFrom('organisation_domains')
        .select('domain')
        .where('domain', 'in', domains)
        .execute()
    : [];
  const free = domains.filter((d) => !taken.some((t) => t.domain === d));
  if (free.length === 0) {
    throw new AppError(
      'DOMAIN_TAKEN',
      "The tenant's verified domains already belong to another organisation. Please contact support.",
    );
  }
  const id = randomUUID();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('organisations')
        .values({
          id,
          name: (caller.organization.displayName || free[0]!).slice(0, 200),
          products: JSON.stringify(ctx.config.m365.products),
          subscription_status: 'not_subscribed',
          sso_config: null,
          m365: true,
          created_at: now,
        })
        .execute();
      await trx
        .insertInto('organisation_domains')
        .values(free.map((domain) => ({ domain, organisation_id: id })))
        .execute();
      await trx
        .insertInto('organisation_m365_tenants')
        .values({ tenant_id: tenantId, organisation_id: id })
        .execute();
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await organisationOfTenant(ctx, tenantId);
    if (!winner) {
      throw new AppError(
        'DOMAIN_TAKEN',
        "The tenant's verified domains already belong to another organisation.",
      );
    }
    return winner.id;
  }
  return id;
}

/**
 * The purchaser (already checked by the caller) becomes the organisation's org-admin when the
 * activation created the organisation or it has no org-admin yet. Otherwise the organisation's
 * org-admins decide: the purchaser keeps the role they have, and is not made a user.
 */
async function seatPurchaser(
  ctx: M365Context,
  caller: M365Caller,
  organisationId: string,
  created: boolean,
): Promise<void> {
  if (!created) {
    const admin = await ctx.db
      .selectFrom('users')
      .select('id')
      .where('organisation_id', '=', organisationId)
      .where('role', '=', 'org-admin')
      .executeTakeFirst();
    if (admin) return;
  }
  const email = emailOf(caller);
  const user = await ctx.db
    .selectFrom('users')
    .select(['id', 'organisation_id', 'role'])
    .where('email', '=', email)
    .executeTakeFirst();
  if (user) {
    if (user.organisation_id !== organisationId) {
      throw new AppError(
        'USER_EXISTS',
        'This email address already belongs to a user of another organisation.',
      );
    }
    if (user.role === 'member' || user.role === 'admin') {
      await ctx.db.updateTable('users').set({ role: 'org-admin' }).where('id', '=', user.id).execute();
    }
    return;
  }
  const first = caller.me.givenName?.trim() || caller.me.displayName?.trim() || email.split('@')[0]!;
  const last = caller.me.surname?.trim() || '-';
  try {
    await createUser(
      ctx,
      {
        organisationId,
        email,
        firstName: first.slice(0, 100),
        lastName: last.slice(0, 100),
        role: 'org-admin',
        isGitUser: false,
        scopeGroups: [],
      },
      { emailVerified: true },
    );
  } catch (error) {
    // A concurrent activation created the purchaser first.
    if (!(error instanceof AppError && error.errorCode === 'USER_EXISTS')) throw error;
  }
}

const STATUS_OF: Partial<Record<string, 'Subscribed' | 'Suspended' | 'Unsubscribed'>> = {
  Subscribed: 'Subscribed',
  Suspended: 'Suspended',
  Unsubscribed: 'Unsubscribed',
};

/**
 * `POST /m365/marketplace/webhook` after the caller was verified. The body is only a notice: the
 * operation is confirmed through the marketplace's Get Operation API (same subscription, same
 * action, not Failed or Conflict), as Microsoft requires, and what is applied is the marketplace's
 * own record of the subscription (status, plan, quantity), read from its Get Subscription API.
 * Each operation id is applied once.
 */
export async function applyWebhook(
  ctx: M365Context,
  event: { id: string; subscriptionId: string; action: string; planId?: string; quantity?: number },
): Promise<{ applied: boolean }> {
  const subscription = await ctx.db
    .selectFrom('marketplace_subscriptions')
    .select(['id', 'organisation_id', 'status'])
    .where('id', '=', event.subscriptionId)
    .executeTakeFirst();
  if (!subscription) throw new AppError('SUBSCRIPTION_NOT_FOUND', 'No activated subscription has this id.');
  const operation = await ctx.microsoft.getOperation(event.subscriptionId, event.id);
  if (
    !operation ||
    operation.id !== event.id ||
    operation.subscriptionId !== event.subscriptionId ||
    operation.action !== event.action
  ) {
    throw new AppError(
      'MARKETPLACE_OPERATION_NOT_FOUND',
      'The marketplace does not confirm this operation for this subscription.',
    );
  }
  const settled = operation.status !== 'Failed' && operation.status !== 'Conflict';
  const state = settled ? await ctx.microsoft.getSubscription(event.subscriptionId) : null;
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('marketplace_webhook_events')
      .values({ id: event.id, subscription_id: event.subscriptionId, action: event.action, received_at: now })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted || !state) return { applied: false };
    const status = STATUS_OF[state.status];
    await trx
      .updateTable('marketplace_subscriptions')
      .set({
        ...(status ? { status } : {}),
        plan_id: state.planId,
        quantity: state.quantity,
        updated_at: now,
      })
      .where('id', '=', event.subscriptionId)
      .execute();
    await recordEvent(
      trx,
      { actorKind: 'system', actorId: null, ip: null, requestId: currentRequestId() ?? null },
      {
        organisationId: subscription.organisation_id,
        type: 'subscription.changed',
        subjectId: null,
        details: {
          subscriptionId: event.subscriptionId,
          action: event.action,
          status: state.status,
          planId: state.planId,
        },
      },
      now,
    );
    // The organisation is subscribed while any of its marketplace subscriptions is.
    const active = await trx
      .selectFrom('marketplace_subscriptions')
      .select(sql<number>`count(*)`.as('n'))
      .where('organisation_id', '=', subscription.organisation_id)
      .where('status', '=', 'Subscribed')
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('organisations')
      .set({ subscription_status: Number(active.n) > 0 ? 'subscribed' : 'not_subscribed' })
      .where('id', '=', subscription.organisation_id)
      .execute();
    return { applied: true };
  });
}

/**
 * What the issue-20 repair migration found: the org-admins of marketplace organisations who bought
 * none of its subscriptions, by organisation and email.
 */
export async function listOrgAdminReview(db: UsersContext['db']) {
  return db
    .selectFrom('m365_org_admin_review')
    .selectAll()
    .orderBy('organisation_id')
    .orderBy('email')
    .execute();
}
