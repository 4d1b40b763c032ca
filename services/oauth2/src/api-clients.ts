import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type Provider from 'oidc-provider';
import { errors, type ClientCredentials, type KoaContextWithOIDC } from 'oidc-provider';
import type { ClaimsSource } from './claims-source.ts';
import { z } from 'zod';
import type { AdapterRegistry } from './adapter/postgres-adapter.ts';
import type { JsonObject } from './claims.ts';
import { OAuth2Error } from './errors.ts';

/**
 * API clients: confidential OAuth2 clients that use only the client-credentials grant, created and
 * deleted through Hydra's admin client API (`POST/GET/DELETE /admin/clients`). They live in the
 * adapter's `Client` model next to the configured browser clients, so oidc-provider finds them on
 * every token request: deleting one takes effect at the next request.
 *
 * - The secret is generated here, answered once at creation and stored only as a SHA-256 hash
 *   (`client_secret` holds `sha256:<base64url>`); oidc-provider's comparison is replaced for such
 *   clients by a constant-time comparison of hashes. The secret is 256 random bits, so a fast hash
 *   is enough: there is nothing to guess from it.
 * - Hydra's `metadata` object is kept (as `hydra_metadata`); its `ext` object becomes the access token's `ext` claim (the
 *   user service puts the organisation, the scope groups and `authenticationMode: "api"` there).
 */

const HASH_PREFIX = 'sha256:';

function hashSecret(secret: string): string {
  return HASH_PREFIX + createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Constant-time: whether `actual` is the secret whose hash is stored. */
function secretMatches(stored: string, actual: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(hashSecret(actual));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Lets oidc-provider authenticate clients whose stored secret is a hash. */
export function acceptHashedClientSecrets(provider: Provider): void {
  const proto = provider.Client.prototype as unknown as {
    clientSecret?: string;
    compareClientSecret(this: { clientSecret?: string }, actual: string): boolean | Promise<boolean>;
  };
  const original = proto.compareClientSecret;
  proto.compareClientSecret = function compare(actual) {
    if (typeof this.clientSecret === 'string' && this.clientSecret.startsWith(HASH_PREFIX)) {
      return typeof actual === 'string' && secretMatches(this.clientSecret, actual);
    }
    return original.call(this, actual);
  };
}

/**
 * Client metadata oidc-provider keeps beyond the standard fields: Hydra's `metadata`, stored as
 * `hydra_metadata` (oidc-provider's Client already has a `metadata()` method). Extra metadata keeps
 * its snake_case name on the client object.
 */
const STORED_METADATA = 'hydra_metadata' as const;
export const extraClientMetadata = {
  properties: [STORED_METADATA],
  validator(_ctx: unknown, key: string, value: unknown) {
    if (key !== STORED_METADATA || value === undefined) return;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error('metadata must be an object');
    }
  },
};

/**
 * `{ext}` of a client-credentials access token: the client's `metadata.ext`. When the client
 * belongs to an organisation (`ext.organisation.id`, set by the user service) and the user service
 * is known, the request's client address must be inside the organisation's trusted networks:
 * otherwise `unauthorized_client`, and no token.
 */
export async function clientCredentialsClaims(
  ctx: KoaContextWithOIDC,
  _token: ClientCredentials,
  claimsSource: ClaimsSource | undefined,
): Promise<JsonObject> {
  const client = ctx.oidc.client as { [STORED_METADATA]?: { ext?: unknown } } | undefined;
  const raw = client?.[STORED_METADATA]?.ext;
  const ext = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as JsonObject) : {};
  const organisation = ext.organisation as { id?: unknown } | undefined;
  if (claimsSource && typeof organisation?.id === 'string') {
    let verdict;
    try {
      verdict = await claimsSource.checkNetwork({ organisationId: organisation.id, clientAddress: ctx.ip });
    } catch {
      throw new errors.TemporarilyUnavailable('the client cannot be checked right now; retry later');
    }
    if (verdict !== 'granted') {
      const refused = new errors.UnauthorizedClient();
      refused.error_description =
        "token refused: the client's organisation allows token requests only from its trusted networks";
      throw refused;
    }
  }
  return { ext };
}

const createClientSchema = z
  .object({
    client_name: z.string().trim().min(1).max(200),
    grant_types: z.array(z.literal('client_credentials')).length(1).default(['client_credentials']),
    token_endpoint_auth_method: z
      .enum(['client_secret_basic', 'client_secret_post'])
      .default('client_secret_basic'),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

interface StoredClient {
  client_id: string;
  client_name: string;
  client_secret: string;
  grant_types: string[];
  response_types: string[];
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  hydra_metadata: Record<string, unknown>;
  created_at: string;
}

const CLIENT_ID = /^[0-9a-f-]{36}$/;

/** Hydra's client shape, without the secret. */
function publicView(client: StoredClient) {
  const { client_secret: _secret, hydra_metadata: metadata, ...rest } = client;
  return { ...rest, metadata };
}

/** Hydra's admin client API, for API clients only (browser clients are configuration). */
export function apiClientAdmin(adapters: AdapterRegistry, now: () => Date) {
  const store = () => adapters.get('Client');

  async function find(id: string): Promise<StoredClient | undefined> {
    if (!CLIENT_ID.test(id)) return undefined;
    const record = await store().findRecord(id);
    return record ? (record.payload as unknown as StoredClient) : undefined;
  }

  return {
    /** Creates one; the answer is the only place the secret ever appears. */
    async create(body: unknown) {
      const parsed = createClientSchema.safeParse(body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw OAuth2Error.invalidRequest(
          `The client is invalid: ${issue?.path.join('.') || 'body'} ${issue?.message ?? ''}`.trim(),
        );
      }
      const secret = randomBytes(32).toString('base64url');
      const client: StoredClient = {
        client_id: randomUUID(),
        client_name: parsed.data.client_name,
        client_secret: hashSecret(secret),
        grant_types: parsed.data.grant_types,
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: parsed.data.token_endpoint_auth_method,
        hydra_metadata: parsed.data.metadata,
        created_at: now().toISOString(),
      };
      await store().upsert(client.client_id, client as never);
      return { ...publicView(client), client_secret: secret };
    },

    /** Every API client, oldest first, without secrets. */
    async list() {
      const records = await store().listPayloads();
      return (records as unknown as StoredClient[])
        .sort((a, b) => a.created_at.localeCompare(b.created_at))
        .map(publicView);
    },

    async get(id: string) {
      const client = await find(id);
      if (!client) throw OAuth2Error.notFound('The client does not exist.');
      return publicView(client);
    },

    async remove(id: string) {
      const client = await find(id);
      if (!client) throw OAuth2Error.notFound('The client does not exist.');
      await store().destroy(id);
    },
  };
}
