import { randomUUID } from 'node:crypto';
import { sql, type Database } from '@acme/db';
import type { Clock } from '@acme/db/clock';
import type { AdapterPayload } from 'oidc-provider';
import { checkOutboundHost, OutboundError, type OutboundPolicy } from '@acme/service-kit/outbound';
import type { AdapterRegistry } from '../adapter/postgres-adapter.ts';
import { OAuth2Error } from '../errors.ts';
import {
  clientView,
  LIFESPAN_FIELDS,
  parseClientDocument,
  toStoredClient,
  usesSecret,
  type ClientDocument,
  type ClientRules,
  type StoredClient,
} from './client-document.ts';
import { hashSecret, keepRotated, newSecret } from './client-secrets.ts';
import { applyJsonPatch, JsonPatchError, parseJsonPatch } from './json-patch.ts';

/**
 * Every OAuth 2.0 client, the platform's own applications included, is one row of the adapter's
 * `Client` model: oidc-provider reads it at each request (no per-instance copy), so a change made
 * on any instance holds on every instance at the next request, with no restart.
 */

interface ClientStoreOptions {
  db: Database;
  adapters: AdapterRegistry;
  clock: Clock;
  rules: ClientRules;
  /** Seconds a rotated-out secret is still accepted. */
  secretGraceSeconds: number;
  /** The outbound policy a `jwks_uri` must meet (it is fetched through the same guard). */
  jwksUriPolicy: OutboundPolicy;
  /** oidc-provider's own check of the metadata (the current provider's `Client.validate`). */
  validate(metadata: StoredClient): Promise<void>;
}

interface ListQuery {
  page_size?: unknown;
  page_token?: unknown;
  client_name?: unknown;
  owner?: unknown;
}

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,255}$/;
const DEFAULT_PAGE_SIZE = 250;
const MAX_PAGE_SIZE = 1000;

/** A client created, or given a new secret: the only answer that carries the secret. */
type WithSecret = ReturnType<typeof clientView> & { client_secret?: string };

export function createClientStore(opts: ClientStoreOptions) {
  const { db, clock } = opts;
  const model = () => opts.adapters.get('Client');

  async function find(id: string): Promise<StoredClient | undefined> {
    if (!CLIENT_ID.test(id)) return undefined;
    const record = await model().findRecord(id);
    return record ? (record.payload as unknown as StoredClient) : undefined;
  }

  async function existing(id: string): Promise<StoredClient> {
    const client = await find(id);
    if (!client) throw OAuth2Error.notFound('The requested OAuth 2.0 Client does not exist.');
    return client;
  }

  function editable(client: StoredClient): StoredClient {
    if (client.configured) {
      throw new OAuth2Error(
        403,
        'request_forbidden',
        'This client comes from the configuration (the platform applications and device clients); change it there.',
      );
    }
    return client;
  }

  async function checkJwksUri(client: Omit<StoredClient, 'client_secret' | 'rotated_secrets'>) {
    if (!client.jwks_uri) return;
    try {
      await checkOutboundHost(client.jwks_uri, opts.jwksUriPolicy);
    } catch (error) {
      const reason = error instanceof OutboundError ? error.reason : 'unreachable';
      throw new OAuth2Error(
        400,
        'invalid_client_metadata',
        `The client is invalid: jwks_uri is refused (${reason}): it must be an https URL of a public address.`,
      );
    }
  }

  /** Writes the client after oidc-provider's own check; `create`: only if no client has its id (else 409). */
  async function save(client: StoredClient, mode: { create?: boolean } = {}): Promise<void> {
    try {
      await opts.validate(client);
    } catch (error) {
      const e = error as { error?: unknown; error_description?: unknown };
      if (e.error === 'invalid_client_metadata' || e.error === 'invalid_redirect_uri') {
        throw new OAuth2Error(400, e.error, String(e.error_description ?? 'The client is invalid.'));
      }
      throw error;
    }
    if (!mode.create) {
      await model().upsert(client.client_id, client as unknown as AdapterPayload);
      return;
    }
    // One statement, so that of concurrent creations with one chosen client_id exactly one wins.
    const inserted = await sql<{ id: string }>`
      insert into oauth2_models (model, id, payload) values ('Client', ${client.client_id}, ${JSON.stringify(client)}::jsonb)
      on conflict (model, id) do nothing returning id`.execute(db.kysely);
    if (inserted.rows.length === 0) {
      throw new OAuth2Error(409, 'resource_conflict', 'A client with this client_id exists already.');
    }
  }

  /** The document applied over `current` (or a new client): the stored client and the secret to show. */
  async function build(doc: ClientDocument, clientId: string, current?: StoredClient) {
    const now = clock.now();
    const base = toStoredClient(doc, opts.rules, { clientId, now, existing: current });
    await checkJwksUri(base);
    let secret: string | undefined;
    let stored: StoredClient;
    if (usesSecret(base)) {
      if (doc.client_secret !== undefined || !current?.client_secret) {
        secret = doc.client_secret ?? newSecret();
      }
      stored = {
        ...base,
        client_secret: secret === undefined ? current!.client_secret! : hashSecret(secret),
        rotated_secrets:
          secret === undefined
            ? (current?.rotated_secrets ?? [])
            : keepRotated(
                current?.rotated_secrets ?? [],
                current?.client_secret,
                now,
                opts.secretGraceSeconds,
              ),
      };
    } else {
      stored = { ...base, rotated_secrets: [] };
    }
    return { stored, secret };
  }

  const answer = (stored: StoredClient, secret: string | undefined): WithSecret => ({
    ...clientView(stored),
    ...(secret === undefined ? {} : { client_secret: secret }),
  });

  async function replaceWith(current: StoredClient, doc: ClientDocument): Promise<WithSecret> {
    if (doc.client_id !== undefined && doc.client_id !== current.client_id) {
      throw new OAuth2Error(
        400,
        'invalid_client_metadata',
        'The client is invalid: client_id cannot change.',
      );
    }
    const { stored, secret } = await build(doc, current.client_id, current);
    await save(stored);
    return answer(stored, secret);
  }

  return {
    find,

    /** Creates a client; the answer is the only place its secret ever appears. */
    async create(body: unknown): Promise<WithSecret> {
      const doc = parseClientDocument(body);
      const clientId = doc.client_id ?? randomUUID();
      const { stored, secret } = await build(doc, clientId);
      await save(stored, { create: true });
      return answer(stored, secret);
    },

    /** Hydra's keyset pagination: oldest first; `next` is the token of the following page. */
    async list(query: ListQuery) {
      const size = query.page_size === undefined ? DEFAULT_PAGE_SIZE : Number(query.page_size);
      if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) {
        throw OAuth2Error.invalidRequest(`page_size must be an integer from 1 to ${MAX_PAGE_SIZE}.`);
      }
      const after = decodePageToken(query.page_token);
      const name = typeof query.client_name === 'string' ? query.client_name : undefined;
      const owner = typeof query.owner === 'string' ? query.owner : undefined;
      const rows = await sql<{ payload: StoredClient }>`
        select payload from oauth2_models
        where model = 'Client'
          ${after ? sql`and (payload->>'created_at', id) > (${after[0]}::text, ${after[1]}::text)` : sql``}
          ${name === undefined ? sql`` : sql`and payload->>'client_name' = ${name}`}
          ${owner === undefined ? sql`` : sql`and payload->>'owner' = ${owner}`}
        order by payload->>'created_at', id
        limit ${size + 1}`.execute(db.kysely);
      const page = rows.rows.slice(0, size).map((r) => r.payload);
      const last = page[page.length - 1];
      const next = rows.rows.length > size && last ? encodePageToken(last) : undefined;
      return { items: page.map(clientView), next, size };
    },

    async get(id: string) {
      return clientView(await existing(id));
    },

    /** Hydra's PUT: the whole client replaced; a `client_secret` in it becomes the new secret. */
    async replace(id: string, body: unknown): Promise<WithSecret> {
      const current = editable(await existing(id));
      return replaceWith(current, parseClientDocument(body));
    },

    /** JSON Patch (RFC 6902) over the client's document, then the same checks as a replacement. */
    async patch(id: string, body: unknown): Promise<WithSecret> {
      const current = editable(await existing(id));
      let patched: unknown;
      try {
        patched = applyJsonPatch(clientView(current), parseJsonPatch(body));
      } catch (error) {
        if (error instanceof JsonPatchError)
          throw OAuth2Error.invalidRequest(`The JSON Patch is invalid: ${error.message}.`);
        throw error;
      }
      return replaceWith(current, parseClientDocument(patched));
    },

    /** Hydra's lifespans: only the token lifespans change. */
    async setLifespans(id: string, body: unknown) {
      const current = editable(await existing(id));
      const lifespans = parseClientDocument(body);
      const extra = Object.keys(lifespans).filter((k) => !(LIFESPAN_FIELDS as readonly string[]).includes(k));
      if (extra.length > 0) {
        throw new OAuth2Error(
          400,
          'invalid_client_metadata',
          `Only token lifespans can be set here, not ${extra.join(', ')}.`,
        );
      }
      return replaceWith(current, parseClientDocument({ ...clientView(current), ...lifespans }));
    },

    /** A new secret now; the previous one is accepted until its grace period ends. */
    async rotateSecret(id: string): Promise<WithSecret> {
      const current = editable(await existing(id));
      if (!usesSecret(current)) {
        throw OAuth2Error.invalidRequest(
          `A ${current.token_endpoint_auth_method} client has no secret to rotate.`,
        );
      }
      const secret = newSecret();
      const stored: StoredClient = {
        ...current,
        client_secret: hashSecret(secret),
        rotated_secrets: keepRotated(
          current.rotated_secrets ?? [],
          current.client_secret,
          clock.now(),
          opts.secretGraceSeconds,
        ),
        updated_at: clock.now().toISOString(),
      };
      await save(stored);
      return answer(stored, secret);
    },

    /** Ends every rotated-out secret's grace period now. */
    async deleteRotatedSecrets(id: string) {
      const current = editable(await existing(id));
      const stored = { ...current, rotated_secrets: [], updated_at: clock.now().toISOString() };
      await save(stored);
      return clientView(stored);
    },

    /**
     * Deletes the client with its grants, consent sessions, codes and tokens in one statement: its
     * tokens stop working at once on every instance (an access token counts only while its index
     * row and its grant exist).
     */
    async remove(id: string): Promise<void> {
      editable(await existing(id));
      await removeClient(db, id);
    },

    /**
     * Writes the configured clients (the platform's applications and device clients) as ordinary
     * clients, marked `configured`, and removes configured ones no longer in the configuration.
     */
    async seed(clients: Omit<StoredClient, 'created_at' | 'updated_at' | 'rotated_secrets'>[]) {
      const now = clock.now().toISOString();
      for (const client of clients) {
        const current = await find(client.client_id);
        const stored: StoredClient = {
          ...client,
          rotated_secrets: [],
          created_at: current?.created_at ?? now,
          updated_at: current?.updated_at ?? now,
        };
        if (
          current &&
          JSON.stringify({ ...current, updated_at: now }) === JSON.stringify({ ...stored, updated_at: now })
        )
          continue;
        await model().upsert(client.client_id, { ...stored, updated_at: now } as unknown as AdapterPayload);
      }
      const ids = clients.map((c) => c.client_id);
      await sql`
        delete from oauth2_models where model = 'Client' and (payload->>'configured')::boolean
          and not (id = any(${ids}::text[]))`.execute(db.kysely);
    },
  };
}

export type ClientStore = ReturnType<typeof createClientStore>;

async function removeClient(db: Database, id: string): Promise<void> {
  await sql`
    with grants as (
      delete from oauth2_models where model = 'Grant' and payload->>'clientId' = ${id} returning id),
    consents as (
      delete from oauth2_consent_sessions where grant_id in (select id from grants)),
    tokens as (
      delete from oauth2_models
      where model not in ('Client', 'Grant')
        and (grant_id in (select id from grants) or payload->>'clientId' = ${id}))
    delete from oauth2_models where model = 'Client' and id = ${id}`.execute(db.kysely);
}

function encodePageToken(client: StoredClient): string {
  return Buffer.from(JSON.stringify([client.created_at, client.client_id])).toString('base64url');
}

function decodePageToken(token: unknown): [string, string] | undefined {
  if (token === undefined || token === '') return undefined;
  try {
    const value = JSON.parse(Buffer.from(String(token), 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && value.every((v) => typeof v === 'string')) {
      return [value[0] as string, value[1] as string];
    }
  } catch {
    // fall through
  }
  throw OAuth2Error.invalidRequest('page_token is invalid.');
}
