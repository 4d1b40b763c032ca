import type { JWTPayload } from 'jose';
import {
  createMicrosoftTokenVerifier,
  MicrosoftTokenError,
  type MicrosoftUser,
} from '@acme/service-kit/microsoft-token';
import { z } from 'zod';
import type { Clock } from '@acme/db/clock';
import type { Config } from '../config.ts';
import { AppError } from '../http/errors.ts';

/**
 * What the user service asks of Microsoft: token checks against the tenant's keys (Entra),
 * on-behalf-of and app tokens (Entra), the signed-in person and their tenant (Graph), and the SaaS
 * Fulfillment API (marketplace). Tokens and codes are never logged or put in messages.
 */

/** The Azure Marketplace SaaS Fulfillment API's application id (Microsoft's). */
const MARKETPLACE_APP_ID = '20e940b3-4c77-4b0b-9a53-9e16a1b010a7';
const GRAPH_SCOPES =
  'https://graph.microsoft.com/User.Read https://graph.microsoft.com/Organization.Read.All';
const MARKETPLACE_API_VERSION = '2018-08-31';

export type MicrosoftIdentity = MicrosoftUser;

export interface GraphMe {
  id: string;
  displayName: string | null;
  givenName: string | null;
  surname: string | null;
  mail: string | null;
  userPrincipalName: string | null;
}

export interface GraphOrganization {
  id: string;
  displayName: string;
  verifiedDomains: { name: string; isDefault?: boolean }[];
}

/** A subscription's state at the marketplace (SaaS Fulfillment API v2 `saasSubscriptionStatus`). */
type MarketplaceStatus =
  'PendingFulfillmentStart' | 'Subscribed' | 'Suspended' | 'Unsubscribed' | 'NotStarted';

interface MarketplaceParty {
  emailId: string;
  /** Entra object id (lower case; empty when the marketplace did not say). */
  objectId: string;
  tenantId: string;
}

interface ResolvedPurchase {
  id: string;
  offerId: string;
  planId: string;
  quantity: number;
  purchaser: MarketplaceParty;
  beneficiary: MarketplaceParty;
  /** The subscription's status as the marketplace reports it. */
  status: MarketplaceStatus;
}

/** A marketplace operation (Get Operation API): what a webhook claims, as Microsoft recorded it. */
interface MarketplaceOperation {
  id: string;
  subscriptionId: string;
  action: string;
  status: string;
  planId?: string | undefined;
  quantity?: number | undefined;
}

/** The subscription's current record at the marketplace (Get Subscription API). */
interface MarketplaceSubscriptionState {
  id: string;
  status: MarketplaceStatus;
  planId: string;
  quantity: number;
}

const meSchema = z.object({
  id: z.string(),
  displayName: z.string().nullish(),
  givenName: z.string().nullish(),
  surname: z.string().nullish(),
  mail: z.string().nullish(),
  userPrincipalName: z.string().nullish(),
});

const organizationSchema = z.object({
  value: z
    .array(
      z.object({
        id: z.string(),
        displayName: z.string().nullish(),
        verifiedDomains: z.array(z.object({ name: z.string(), isDefault: z.boolean().nullish() })).nullish(),
      }),
    )
    .min(1),
});

const party = z.object({
  emailId: z.string().default(''),
  objectId: z.string().default(''),
  tenantId: z.string(),
});
const statusSchema = z.enum([
  'PendingFulfillmentStart',
  'Subscribed',
  'Suspended',
  'Unsubscribed',
  'NotStarted',
]);
const resolveSchema = z.object({
  id: z.string().min(1).max(100),
  offerId: z.string(),
  planId: z.string(),
  quantity: z.number().int().nullish(),
  subscription: z.object({ purchaser: party, beneficiary: party, saasSubscriptionStatus: statusSchema }),
});
const subscriptionSchema = z.object({
  id: z.string().min(1).max(100),
  planId: z.string(),
  quantity: z.number().int().nullish(),
  saasSubscriptionStatus: statusSchema,
});
const operationSchema = z.object({
  id: z.string().min(1).max(100),
  subscriptionId: z.string().min(1).max(100),
  action: z.string(),
  status: z.string(),
  planId: z.string().nullish(),
  quantity: z.number().int().nullish(),
});

const tokenResponseSchema = z.object({ access_token: z.string().min(1), expires_in: z.coerce.number() });
const entraErrorSchema = z.object({
  error: z.string(),
  error_codes: z.array(z.number()).optional(),
  suberror: z.string().optional(),
});

export interface MicrosoftClient {
  /** Verifies an ID token or Teams SSO token for our app; 401 UNAUTHENTICATED if not valid. */
  verifyUserToken(token: string): Promise<MicrosoftIdentity>;
  /** Verifies a marketplace webhook's bearer token (app token of the marketplace for our app). */
  verifyMarketplaceCaller(token: string): Promise<void>;
  /** A Graph token for the user of `assertion` (on-behalf-of). */
  graphTokenOnBehalfOf(assertion: string, tenantId: string): Promise<string>;
  me(graphToken: string): Promise<GraphMe>;
  organization(graphToken: string): Promise<GraphOrganization>;
  resolvePurchase(marketplaceToken: string): Promise<ResolvedPurchase>;
  activatePurchase(subscriptionId: string, planId: string, quantity: number): Promise<void>;
  /** The subscription as the marketplace records it; null when it does not know it. */
  getSubscription(subscriptionId: string): Promise<MarketplaceSubscriptionState | null>;
  /** The operation as the marketplace records it; null when it does not know it. */
  getOperation(subscriptionId: string, operationId: string): Promise<MarketplaceOperation | null>;
}

function unauthenticated(what = 'The Microsoft token is invalid or has expired.'): AppError {
  return new AppError('UNAUTHENTICATED', what);
}

function fromTokenError(error: unknown): AppError {
  if (!(error instanceof MicrosoftTokenError)) throw error;
  if (error.kind === 'unavailable')
    return upstream('Microsoft identity platform', 'did not answer with its keys');
  return unauthenticated(error.message);
}

function notGranted(): AppError {
  return new AppError(
    'UserNotGrantedAccessException',
    "An administrator of your organisation's Microsoft 365 tenant has not granted this app access.",
  );
}

function upstream(service: string, what: string): AppError {
  return new AppError('UPSTREAM_ERROR', `The ${service} ${what}.`);
}

interface Answer {
  status: number;
  body: unknown;
}

async function call(service: string, url: string, init: RequestInit, timeoutMs: number): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch {
    throw upstream(service, 'is unreachable');
  }
  const text = await res.text().catch(() => '');
  if (text.length === 0) return { status: res.status, body: undefined };
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    throw upstream(service, `answered ${res.status} with a body that is not JSON`);
  }
}

export function createMicrosoftClient(config: Config, clock: Clock): MicrosoftClient {
  const m = config.m365;
  const timeoutMs = config.upstreamTimeoutMs;
  const tokens = createMicrosoftTokenVerifier({
    authorityUrl: m.authorityUrl,
    clientId: m.clientId,
    appIdUri: m.appIdUri,
    timeoutMs,
    clock,
  });
  let marketplaceToken: { value: string; until: number } | undefined;

  /** Signature against the tenant's keys, issuer of that tenant, audience, lifetime (shared check). */
  async function verifyEntraToken(token: string): Promise<JWTPayload> {
    try {
      return await tokens.verifyEntraToken(token);
    } catch (error) {
      throw fromTokenError(error);
    }
  }

  async function tokenRequest(tenantId: string, form: Record<string, string>): Promise<Answer> {
    return call(
      'Microsoft identity platform',
      `${m.authorityUrl}/${tenantId}/oauth2/v2.0/token`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams(form).toString(),
      },
      timeoutMs,
    );
  }

  async function graph(path: string, token: string): Promise<unknown> {
    const res = await call(
      'Microsoft Graph API',
      `${m.graphUrl}/v1.0/${path}`,
      { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } },
      timeoutMs,
    );
    if (res.status === 401) throw unauthenticated('The Microsoft Graph token is invalid or has expired.');
    if (res.status === 403) throw notGranted();
    if (res.status !== 200) throw upstream('Microsoft Graph API', `answered ${res.status}`);
    return res.body;
  }

  async function appTokenForMarketplace(): Promise<string> {
    const now = clock.now().getTime();
    if (marketplaceToken && marketplaceToken.until > now) return marketplaceToken.value;
    const res = await tokenRequest(m.publisherTenantId, {
      grant_type: 'client_credentials',
      client_id: m.clientId,
      client_secret: m.clientSecret,
      scope: `${MARKETPLACE_APP_ID}/.default`,
    });
    const parsed = tokenResponseSchema.safeParse(res.body);
    if (res.status !== 200 || !parsed.success) {
      throw upstream('Microsoft identity platform', `refused the marketplace app token (${res.status})`);
    }
    marketplaceToken = {
      value: parsed.data.access_token,
      until: now + Math.max(0, parsed.data.expires_in - 120) * 1000,
    };
    return marketplaceToken.value;
  }

  async function marketplace(path: string, init: RequestInit): Promise<Answer> {
    const token = await appTokenForMarketplace();
    const separator = path.includes('?') ? '&' : '?';
    return call(
      'marketplace API',
      `${m.marketplaceUrl}/api/saas/subscriptions${path}${separator}api-version=${MARKETPLACE_API_VERSION}`,
      {
        ...init,
        headers: {
          ...(init.headers as Record<string, string>),
          authorization: `Bearer ${token}`,
          accept: 'application/json',
        },
      },
      timeoutMs,
    );
  }

  return {
    async verifyUserToken(token) {
      try {
        return await tokens.verifyUserToken(token);
      } catch (error) {
        throw fromTokenError(error);
      }
    },

    async verifyMarketplaceCaller(token) {
      const claims = await verifyEntraToken(token);
      const caller = claims.azp ?? claims.appid;
      if (caller !== MARKETPLACE_APP_ID || String(claims.tid).toLowerCase() !== m.publisherTenantId) {
        throw unauthenticated('The caller is not the Azure Marketplace.');
      }
    },

    async graphTokenOnBehalfOf(assertion, tenantId) {
      const res = await tokenRequest(tenantId, {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        client_id: m.clientId,
        client_secret: m.clientSecret,
        assertion,
        requested_token_use: 'on_behalf_of',
        scope: GRAPH_SCOPES,
      });
      const ok = tokenResponseSchema.safeParse(res.body);
      if (res.status === 200 && ok.success) return ok.data.access_token;
      const err = entraErrorSchema.safeParse(res.body);
      if (err.success) {
        const codes = err.data.error_codes ?? [];
        if (err.data.suberror === 'consent_required' || codes.includes(65001)) throw notGranted();
        if (err.data.error === 'invalid_grant') throw unauthenticated();
      }
      throw upstream('Microsoft identity platform', `refused the on-behalf-of request (${res.status})`);
    },

    async me(graphToken) {
      const parsed = meSchema.safeParse(await graph('me', graphToken));
      if (!parsed.success) throw upstream('Microsoft Graph API', 'answered /me with an unexpected shape');
      const d = parsed.data;
      return {
        id: d.id.toLowerCase(),
        displayName: d.displayName ?? null,
        givenName: d.givenName ?? null,
        surname: d.surname ?? null,
        mail: d.mail ?? null,
        userPrincipalName: d.userPrincipalName ?? null,
      };
    },

    async organization(graphToken) {
      const parsed = organizationSchema.safeParse(await graph('organization', graphToken));
      if (!parsed.success)
        throw upstream('Microsoft Graph API', 'answered /organization with an unexpected shape');
      const org = parsed.data.value[0]!;
      return {
        id: org.id.toLowerCase(),
        displayName: org.displayName ?? '',
        verifiedDomains: (org.verifiedDomains ?? []).map((d) => ({
          name: d.name.toLowerCase(),
          isDefault: d.isDefault ?? false,
        })),
      };
    },

    async resolvePurchase(marketplaceTokenValue) {
      const res = await marketplace('/resolve', {
        method: 'POST',
        headers: { 'x-ms-marketplace-token': marketplaceTokenValue },
      });
      if (res.status === 400 || res.status === 404) {
        throw new AppError(
          'InvalidMarketplaceTokenException',
          'The marketplace purchase token is invalid or has expired.',
        );
      }
      const parsed = resolveSchema.safeParse(res.body);
      if (res.status !== 200 || !parsed.success)
        throw upstream('marketplace API', `answered ${res.status} to resolve`);
      const d = parsed.data;
      const lowerParty = (p: z.infer<typeof party>): MarketplaceParty => ({
        emailId: p.emailId.toLowerCase(),
        objectId: p.objectId.toLowerCase(),
        tenantId: p.tenantId.toLowerCase(),
      });
      return {
        id: d.id,
        offerId: d.offerId,
        planId: d.planId,
        quantity: d.quantity ?? 1,
        purchaser: lowerParty(d.subscription.purchaser),
        beneficiary: lowerParty(d.subscription.beneficiary),
        status: d.subscription.saasSubscriptionStatus,
      };
    },

    async getSubscription(subscriptionId) {
      const res = await marketplace(`/${encodeURIComponent(subscriptionId)}`, { method: 'GET' });
      if (res.status === 404) return null;
      const parsed = subscriptionSchema.safeParse(res.body);
      if (res.status !== 200 || !parsed.success)
        throw upstream('marketplace API', `answered ${res.status} to get subscription`);
      return {
        id: parsed.data.id,
        status: parsed.data.saasSubscriptionStatus,
        planId: parsed.data.planId,
        quantity: parsed.data.quantity ?? 1,
      };
    },

    async getOperation(subscriptionId, operationId) {
      const res = await marketplace(
        `/${encodeURIComponent(subscriptionId)}/operations/${encodeURIComponent(operationId)}`,
        { method: 'GET' },
      );
      if (res.status === 404) return null;
      const parsed = operationSchema.safeParse(res.body);
      if (res.status !== 200 || !parsed.success)
        throw upstream('marketplace API', `answered ${res.status} to get operation`);
      const d = parsed.data;
      return {
        id: d.id,
        subscriptionId: d.subscriptionId,
        action: d.action,
        status: d.status,
        ...(d.planId ? { planId: d.planId } : {}),
        ...(typeof d.quantity === 'number' ? { quantity: d.quantity } : {}),
      };
    },

    async activatePurchase(subscriptionId, planId, quantity) {
      const res = await marketplace(`/${encodeURIComponent(subscriptionId)}/activate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ planId, quantity }),
      });
      if (res.status !== 200) throw upstream('marketplace API', `answered ${res.status} to activate`);
    },
  };
}
