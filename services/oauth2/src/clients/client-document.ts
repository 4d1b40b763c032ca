import { z } from 'zod';
import { OAuth2Error } from '../errors.ts';

/**
 * Hydra's OAuth 2.0 client document (`oAuth2Client`) as the admin client API reads and answers it,
 * and the rules a client must meet here. Field names are Hydra's. What is stored is oidc-provider's
 * client metadata plus the Hydra fields oidc-provider has no notion of (see `StoredClient`).
 */

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** Hydra's per-client token lifespans (Go durations such as `1h0m0s`), by the grant they apply to. */
export const LIFESPAN_FIELDS = [
  'authorization_code_grant_access_token_lifespan',
  'authorization_code_grant_id_token_lifespan',
  'authorization_code_grant_refresh_token_lifespan',
  'client_credentials_grant_access_token_lifespan',
  'device_authorization_grant_access_token_lifespan',
  'device_authorization_grant_id_token_lifespan',
  'device_authorization_grant_refresh_token_lifespan',
  'implicit_grant_access_token_lifespan',
  'implicit_grant_id_token_lifespan',
  'jwt_bearer_grant_access_token_lifespan',
  'refresh_token_grant_access_token_lifespan',
  'refresh_token_grant_id_token_lifespan',
  'refresh_token_grant_refresh_token_lifespan',
] as const;
export type LifespanField = (typeof LIFESPAN_FIELDS)[number];

const GO_DURATION = /^(\d{1,9}(ns|us|µs|ms|s|m|h))+$/;
const UNIT_SECONDS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/** Seconds of a Go duration (`1h30m`), at least 1. */
export function durationSeconds(value: string): number {
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)(ns|us|µs|ms|s|m|h)/g)) {
    total += Number(amount) * UNIT_SECONDS[unit!]!;
  }
  return Math.max(1, Math.floor(total));
}

/** Longest string field, list and metadata document accepted: a client document is small. */
const LIMITS = { uri: 2000, text: 255, name: 200, list: 50, metadataBytes: 16 * 1024, scope: 1000 };

const uri = z.string().max(LIMITS.uri);
const uriList = z.array(uri).max(LIMITS.list);
const text = z.string().max(LIMITS.text);
const lifespan = z
  .string()
  .regex(GO_DURATION, 'must be a duration such as 1h0m0s')
  .max(64)
  .nullable()
  .optional();
/** Fields of a feature this server does not offer: accepted only empty, as Hydra answers them when unset. */
const emptyText = z.literal('').optional();

const lifespanShape = Object.fromEntries(LIFESPAN_FIELDS.map((f) => [f, lifespan])) as Record<
  LifespanField,
  typeof lifespan
>;

export const ClientDocumentSchema = z
  .object({
    client_id: z
      .string()
      .regex(/^[A-Za-z0-9._~-]{1,255}$/, 'must be 1 to 255 letters, digits or . _ ~ -')
      .optional(),
    client_name: z.string().max(LIMITS.name).optional(),
    client_secret: z.string().min(32, 'must be at least 32 characters').max(512).optional(),
    redirect_uris: uriList.optional(),
    post_logout_redirect_uris: uriList.optional(),
    grant_types: z.array(text).max(8).optional(),
    response_types: z.array(text).max(4).optional(),
    scope: z.string().max(LIMITS.scope).optional(),
    audience: z.array(uri).max(20).optional(),
    owner: text.optional(),
    token_endpoint_auth_method: text.optional(),
    token_endpoint_auth_signing_alg: text.optional(),
    jwks: z
      .object({ keys: z.array(z.record(z.string(), z.unknown())).max(20) })
      .strict()
      .optional(),
    jwks_uri: uri.optional(),
    client_uri: uri.optional(),
    logo_uri: uri.optional(),
    policy_uri: uri.optional(),
    tos_uri: uri.optional(),
    contacts: z.array(z.string().max(320)).max(20).optional(),
    skip_consent: z.boolean().optional(),
    skip_logout_consent: z.boolean().optional(),
    allowed_cors_origins: uriList.optional(),
    metadata: z.record(z.string(), z.unknown()).nullable().optional(),
    access_token_strategy: z.enum(['jwt', '']).optional(),
    subject_type: z.enum(['public', '']).optional(),
    ...lifespanShape,
    // Features not offered here: logout notifications to the client, request objects, pairwise
    // subjects, signed userinfo. Accepted only as Hydra answers them when unset.
    backchannel_logout_uri: emptyText,
    frontchannel_logout_uri: emptyText,
    backchannel_logout_session_required: z.literal(false).optional(),
    frontchannel_logout_session_required: z.literal(false).optional(),
    request_uris: z.array(z.never()).max(0).optional(),
    sector_identifier_uri: emptyText,
    request_object_signing_alg: z.enum(['', 'none']).optional(),
    userinfo_signed_response_alg: z.enum(['', 'none']).optional(),
    // Read-only fields a client sends back from a read: ignored.
    created_at: z.string().max(64).optional(),
    updated_at: z.string().max(64).optional(),
    client_secret_expires_at: z.number().optional(),
    registration_access_token: z.string().max(LIMITS.uri).optional(),
    registration_client_uri: z.string().max(LIMITS.uri).optional(),
  })
  .strict();
export type ClientDocument = z.infer<typeof ClientDocumentSchema>;

/** A rotated-out secret: still accepted until `expires_at` (epoch seconds). */
export interface RotatedSecret {
  hash: string;
  expires_at: number;
}

/** What the adapter's `Client` model holds: oidc-provider's metadata plus Hydra's own fields. */
export interface StoredClient {
  client_id: string;
  /** Absent when empty (oidc-provider refuses an empty name). */
  client_name?: string;
  /** `sha256:<base64url>` of the secret; absent for public clients. */
  client_secret?: string;
  application_type: 'web' | 'native';
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  scope: string;
  token_endpoint_auth_method: string;
  token_endpoint_auth_signing_alg?: string;
  jwks?: { keys: Record<string, unknown>[] };
  jwks_uri?: string;
  client_uri?: string;
  logo_uri?: string;
  policy_uri?: string;
  tos_uri?: string;
  contacts?: string[];
  // Hydra's fields, kept as extra client metadata (snake_case on oidc-provider's client object).
  hydra_metadata: Record<string, unknown>;
  audience: string[];
  owner: string;
  skip_consent: boolean;
  skip_logout_consent: boolean;
  allowed_cors_origins: string[];
  hydra_lifespans: Partial<Record<LifespanField, string>>;
  rotated_secrets: RotatedSecret[];
  /** Seeded from the configuration at start-up (the platform's own applications and devices). */
  configured: boolean;
  created_at: string;
  updated_at: string;
}

/** The extra client metadata oidc-provider keeps for us (see `StoredClient`). */
export const EXTRA_CLIENT_PROPERTIES = [
  'hydra_metadata',
  'audience',
  'owner',
  'skip_consent',
  'skip_logout_consent',
  'allowed_cors_origins',
  'hydra_lifespans',
  'rotated_secrets',
  'configured',
  'created_at',
  'updated_at',
] as const;

export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post']);

export function usesSecret(client: Pick<StoredClient, 'token_endpoint_auth_method'>): boolean {
  return SECRET_METHODS.has(client.token_endpoint_auth_method);
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const invalidMetadata = (description: string) => new OAuth2Error(400, 'invalid_client_metadata', description);
const invalidRedirect = (description: string) => new OAuth2Error(400, 'invalid_redirect_uri', description);

/** Parses a client document; a wrong shape is `invalid_client_metadata` naming the field. */
export function parseClientDocument(body: unknown): ClientDocument {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidMetadata('The client document must be a JSON object.');
  }
  const parsed = ClientDocumentSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || 'document';
    const message =
      issue.code === 'unrecognized_keys' ? `unknown field ${issue.keys.join(', ')}` : issue.message;
    throw invalidMetadata(`The client is invalid: ${field}: ${message}.`);
  }
  const metadata = parsed.data.metadata;
  if (metadata && JSON.stringify(metadata).length > LIMITS.metadataBytes) {
    throw invalidMetadata(`The client is invalid: metadata is larger than ${LIMITS.metadataBytes} bytes.`);
  }
  return parsed.data;
}

/** A redirect URI: absolute, no fragment, https, or http on a loopback host only. */
function checkRedirectUri(raw: string, field: string): void {
  const url = URL.parse(raw);
  if (!url) throw invalidRedirect(`${field}: ${raw} is not an absolute URI.`);
  if (raw.includes('#')) throw invalidRedirect(`${field}: ${raw} must not contain a fragment.`);
  if (url.username || url.password) throw invalidRedirect(`${field}: ${raw} must not contain credentials.`);
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return;
  throw invalidRedirect(`${field}: ${raw} must use https (plain http only on a loopback host).`);
}

function checkWebUri(raw: string, field: string): void {
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    throw invalidMetadata(`The client is invalid: ${field} must be an http(s) URI.`);
  }
}

export interface ClientRules {
  /** Scopes the server knows: a client may ask for these only. */
  scopes: readonly string[];
  /** Grants the server offers (the device grant only when it is on). */
  grants: readonly string[];
  /** Audiences (resource indicators) the server issues tokens for. */
  audiences: readonly string[];
}

/**
 * The client as stored, from a parsed document (defaults as Hydra's: the authorization code grant,
 * `client_secret_basic`). `existing` is the stored client a replacement starts from (its id, secret
 * and creation time stay). Throws `invalid_client_metadata` / `invalid_redirect_uri`.
 */
export function toStoredClient(
  doc: ClientDocument,
  rules: ClientRules,
  ids: { clientId: string; now: Date; existing?: StoredClient | undefined },
): Omit<StoredClient, 'client_secret' | 'rotated_secrets'> {
  const grantTypes = [...new Set(doc.grant_types ?? ['authorization_code'])];
  for (const grant of grantTypes) {
    if (!rules.grants.includes(grant)) {
      throw invalidMetadata(
        `The client is invalid: grant_types: ${grant} is not supported (supported: ${rules.grants.join(', ')}).`,
      );
    }
  }
  if (grantTypes.length === 0) throw invalidMetadata('The client is invalid: grant_types is empty.');
  const codeFlow = grantTypes.includes('authorization_code');
  if (grantTypes.includes('refresh_token') && !codeFlow && !grantTypes.includes(DEVICE_GRANT)) {
    throw invalidMetadata(
      'The client is invalid: grant_types: refresh_token needs authorization_code or the device code grant.',
    );
  }
  const responseTypes = [...new Set(doc.response_types ?? (codeFlow ? ['code'] : []))];
  if (responseTypes.some((t) => t !== 'code') || responseTypes.includes('code') !== codeFlow) {
    throw invalidMetadata(
      'The client is invalid: response_types must be ["code"] with authorization_code, and empty without it.',
    );
  }

  const method = doc.token_endpoint_auth_method || 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method)) {
    throw invalidMetadata(
      `The client is invalid: token_endpoint_auth_method: ${method} is not supported (supported: ${AUTH_METHODS.join(', ')}).`,
    );
  }
  if (method === 'none' && grantTypes.includes('client_credentials')) {
    throw invalidMetadata('The client is invalid: a public client (none) cannot use client_credentials.');
  }
  const jwksUri = doc.jwks_uri || undefined;
  if (doc.jwks && jwksUri) {
    throw invalidMetadata('The client is invalid: jwks and jwks_uri must not both be set.');
  }
  if (method === 'private_key_jwt' && !doc.jwks && !jwksUri) {
    throw invalidMetadata('The client is invalid: private_key_jwt needs jwks or jwks_uri.');
  }
  if (method !== 'private_key_jwt' && (doc.jwks || jwksUri || doc.token_endpoint_auth_signing_alg)) {
    throw invalidMetadata(
      'The client is invalid: jwks, jwks_uri and token_endpoint_auth_signing_alg go with private_key_jwt only.',
    );
  }
  if (method === 'none' || method === 'private_key_jwt') {
    if (doc.client_secret !== undefined) {
      throw invalidMetadata(`The client is invalid: client_secret is not used with ${method}.`);
    }
  }

  const redirectUris = doc.redirect_uris ?? [];
  redirectUris.forEach((u) => checkRedirectUri(u, 'redirect_uris'));
  const postLogout = doc.post_logout_redirect_uris ?? [];
  postLogout.forEach((u) => checkRedirectUri(u, 'post_logout_redirect_uris'));
  if (codeFlow && redirectUris.length === 0) {
    throw invalidRedirect('redirect_uris: the authorization code grant needs at least one redirect URI.');
  }
  if (!codeFlow && (redirectUris.length > 0 || postLogout.length > 0)) {
    throw invalidRedirect('redirect_uris: only a client of the authorization code grant has redirect URIs.');
  }
  if (jwksUri) checkWebUri(jwksUri, 'jwks_uri');
  for (const field of ['client_uri', 'logo_uri', 'policy_uri', 'tos_uri'] as const) {
    if (doc[field]) checkWebUri(doc[field], field);
  }
  for (const origin of doc.allowed_cors_origins ?? []) {
    const url = URL.parse(origin);
    if (!url || url.origin !== origin) {
      throw invalidMetadata(`The client is invalid: allowed_cors_origins: ${origin} is not an origin.`);
    }
  }

  const scope = (doc.scope ?? rules.scopes.join(' ')).split(' ').filter(Boolean);
  for (const s of scope) {
    if (!rules.scopes.includes(s)) {
      throw invalidMetadata(
        `The client is invalid: scope: ${s} is not a scope of this server (known: ${rules.scopes.join(', ')}).`,
      );
    }
  }
  for (const audience of doc.audience ?? []) {
    if (!rules.audiences.includes(audience)) {
      throw invalidMetadata(
        `The client is invalid: audience: ${audience} is not an audience of this server (known: ${rules.audiences.join(', ')}).`,
      );
    }
  }

  const lifespans: Partial<Record<LifespanField, string>> = {};
  for (const field of LIFESPAN_FIELDS) {
    const value = doc[field];
    if (value) lifespans[field] = value;
  }
  const now = ids.now.toISOString();
  const optional = <K extends string, V>(key: K, value: V | undefined | '') =>
    value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, V>);

  return {
    client_id: ids.clientId,
    ...optional('client_name', doc.client_name),
    application_type: grantTypes.includes(DEVICE_GRANT) && !codeFlow ? 'native' : 'web',
    redirect_uris: redirectUris,
    post_logout_redirect_uris: postLogout,
    grant_types: grantTypes,
    response_types: responseTypes,
    scope: [...new Set(scope)].join(' '),
    token_endpoint_auth_method: method,
    ...optional('token_endpoint_auth_signing_alg', doc.token_endpoint_auth_signing_alg),
    ...optional('jwks', doc.jwks),
    ...optional('jwks_uri', jwksUri),
    ...optional('client_uri', doc.client_uri),
    ...optional('logo_uri', doc.logo_uri),
    ...optional('policy_uri', doc.policy_uri),
    ...optional('tos_uri', doc.tos_uri),
    ...(doc.contacts && doc.contacts.length > 0 ? { contacts: doc.contacts } : {}),
    hydra_metadata: doc.metadata ?? {},
    audience: doc.audience ?? [],
    owner: doc.owner ?? '',
    skip_consent: doc.skip_consent ?? false,
    skip_logout_consent: doc.skip_logout_consent ?? false,
    allowed_cors_origins: doc.allowed_cors_origins ?? [],
    hydra_lifespans: lifespans,
    configured: ids.existing?.configured ?? false,
    created_at: ids.existing?.created_at ?? now,
    updated_at: now,
  };
}

/** Hydra's `oAuth2Client` answer for a stored client: never a secret or its hash. */
export function clientView(client: StoredClient) {
  return {
    client_id: client.client_id,
    client_name: client.client_name ?? '',
    redirect_uris: client.redirect_uris,
    post_logout_redirect_uris: client.post_logout_redirect_uris,
    grant_types: client.grant_types,
    response_types: client.response_types,
    scope: client.scope,
    audience: client.audience,
    owner: client.owner,
    token_endpoint_auth_method: client.token_endpoint_auth_method,
    token_endpoint_auth_signing_alg: client.token_endpoint_auth_signing_alg ?? '',
    ...(client.jwks ? { jwks: client.jwks } : {}),
    jwks_uri: client.jwks_uri ?? '',
    client_uri: client.client_uri ?? '',
    logo_uri: client.logo_uri ?? '',
    policy_uri: client.policy_uri ?? '',
    tos_uri: client.tos_uri ?? '',
    contacts: client.contacts ?? [],
    skip_consent: client.skip_consent,
    skip_logout_consent: client.skip_logout_consent,
    allowed_cors_origins: client.allowed_cors_origins,
    metadata: client.hydra_metadata,
    access_token_strategy: 'jwt',
    subject_type: 'public',
    client_secret_expires_at: 0,
    ...client.hydra_lifespans,
    created_at: client.created_at,
    updated_at: client.updated_at,
  };
}
