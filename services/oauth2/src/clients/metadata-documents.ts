import { fetchText, OutboundError, type OutboundPolicy } from '@acme/service-kit/outbound';
import type { Clock } from '@acme/db/clock';
import type { Logger } from 'pino';
import type { AdapterRegistry } from '../adapter/postgres-adapter.ts';
import {
  parseClientDocument,
  toStoredClient,
  type ClientRules,
  type StoredClient,
} from './client-document.ts';

/**
 * Client ID metadata documents: a client with no registration here names itself by an https URL
 * (its `client_id`), where it publishes a JSON document of its metadata (`client_name`,
 * `redirect_uris`, …). The authorization server fetches that document through the outbound guard
 * (https only, public addresses only, no redirects, a time-out and a size limit), keeps it for a
 * while, and treats the client as a public client: no secret, PKCE (required of every client),
 * the authorization code grant with refresh tokens, a person's consent every time it is new, and
 * tokens for the configured resource servers only (as a dynamically registered client).
 *
 * A document is refused (the client is unknown) when its `client_id` is not exactly its own URL,
 * when it is not a JSON object, larger than the limit, asks for a secret or another grant, or
 * names redirect URIs the registration policy would refuse. Plain http documents on a loopback host
 * are accepted only while loopback registration is on (a developer's machine).
 */

/** Largest document read: a client's metadata is a few hundred bytes. */
const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
/** How long a fetched document (or a refusal) is kept before it is fetched again. */
const CACHE_MS = 5 * 60 * 1000;
/** Documents kept at most (oldest dropped first). */
const CACHE_ENTRIES = 500;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** The fields of a document that become the client's; anything else is ignored. */
const DOCUMENT_FIELDS = [
  'client_name',
  'redirect_uris',
  'post_logout_redirect_uris',
  'grant_types',
  'response_types',
  'scope',
  'client_uri',
  'logo_uri',
  'policy_uri',
  'tos_uri',
  'contacts',
] as const;
const DOCUMENT_GRANTS = new Set(['authorization_code', 'refresh_token']);

interface MetadataDocumentOptions {
  /** Loopback registration is on: http documents and redirect URIs on a loopback host are allowed. */
  loopback: boolean;
  timeoutMs: number;
  rules: ClientRules;
  /** The audiences such a client may get tokens for: the configured resource servers. */
  audiences: readonly string[];
  clock: Clock;
  logger: Logger;
  /** A test's resolver (node's otherwise). */
  resolve?: OutboundPolicy['resolve'];
}

/** The policy a document URL is fetched under, or undefined when the URL cannot be a client_id. */
function policyFor(id: string, options: MetadataDocumentOptions): OutboundPolicy | undefined {
  const url = URL.parse(id);
  if (!url || url.href !== id || url.username || url.password || url.hash || url.search) return undefined;
  // A path is required: the origin alone is no client's document.
  if (url.pathname === '/' || url.pathname === '') return undefined;
  const base = { timeoutMs: options.timeoutMs, ...(options.resolve ? { resolve: options.resolve } : {}) };
  if (url.protocol === 'https:') return { ...base, httpHosts: [], allowPrivate: false };
  if (url.protocol === 'http:' && options.loopback && LOOPBACK_HOSTS.has(url.hostname)) {
    return { ...base, httpHosts: [url.hostname.replace(/^\[|\]$/g, '')], allowPrivate: true };
  }
  return undefined;
}

/** Whether `id` is a client_id naming a metadata document (an https URL with a path). */
function isMetadataDocumentId(id: string): boolean {
  return /^https?:\/\//.test(id);
}

function refused(id: string, reason: string): Error {
  return new Error(`client metadata document ${id} refused: ${reason}`);
}

/** The stored client a document describes; throws when it is refused. */
function clientOf(id: string, text: string, options: MetadataDocumentOptions): StoredClient {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw refused(id, 'not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw refused(id, 'not a JSON object');
  const given = body as Record<string, unknown>;
  if (given.client_id !== id) throw refused(id, 'its client_id is not its URL');
  const method = given.token_endpoint_auth_method;
  if ((method !== undefined && method !== 'none') || given.client_secret !== undefined) {
    throw refused(id, 'a client named by its document has no secret (token_endpoint_auth_method none)');
  }
  const doc: Record<string, unknown> = {
    token_endpoint_auth_method: 'none',
    audience: [...options.audiences],
  };
  for (const field of DOCUMENT_FIELDS) {
    if (Object.hasOwn(given, field)) doc[field] = given[field];
  }
  const grants = Array.isArray(doc.grant_types) ? doc.grant_types : ['authorization_code'];
  if (!grants.every((g) => DOCUMENT_GRANTS.has(String(g)))) {
    throw refused(id, 'only authorization_code and refresh_token');
  }
  for (const raw of [doc.redirect_uris, doc.post_logout_redirect_uris].flat()) {
    if (raw === undefined) continue;
    const url = typeof raw === 'string' ? URL.parse(raw) : null;
    // An assistant on a person's machine comes back on a loopback address (RFC 8252).
    if (!url || (url.protocol !== 'https:' && !LOOPBACK_HOSTS.has(url.hostname))) {
      throw refused(id, 'redirect URIs must be https or on a loopback host');
    }
  }
  const stored = toStoredClient(parseClientDocument(doc), options.rules, {
    clientId: id,
    now: options.clock.now(),
  });
  return { ...stored, rotated_secrets: [] };
}

export function createMetadataDocuments(options: MetadataDocumentOptions) {
  const cache = new Map<string, { until: number; client: Promise<StoredClient | undefined> }>();

  async function load(id: string, policy: OutboundPolicy): Promise<StoredClient | undefined> {
    try {
      const text = await fetchText(id, policy, {
        accept: 'application/json',
        maxBytes: METADATA_DOCUMENT_MAX_BYTES,
      });
      return clientOf(id, text, options);
    } catch (error) {
      const reason = error instanceof OutboundError ? error.reason : (error as Error).message;
      options.logger.info({ clientId: id, reason }, 'client metadata document refused');
      return undefined;
    }
  }

  /** The client a metadata document URL names, or undefined (unknown client) when it is refused. */
  async function find(id: string): Promise<StoredClient | undefined> {
    const policy = policyFor(id, options);
    if (!policy) return undefined;
    const now = options.clock.now().getTime();
    const kept = cache.get(id);
    if (kept && kept.until > now) return kept.client;
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    const client = load(id, policy);
    cache.set(id, { until: now + CACHE_MS, client });
    return client;
  }

  return { find };
}

type MetadataDocuments = ReturnType<typeof createMetadataDocuments>;

/**
 * The adapter registry oidc-provider reads clients through: a client_id that is a URL is looked up
 * as a metadata document, every other one in the database. Our own modules keep the registry's
 * `get`, which knows stored clients only (the admin client API never lists a document's client).
 */
export function withMetadataDocuments(
  registry: AdapterRegistry,
  documents: MetadataDocuments | undefined,
): AdapterRegistry {
  if (!documents) return registry;
  const stored = registry.get('Client');
  const clients = new Proxy(stored, {
    get(target, property) {
      if (property === 'find') {
        return async (id: string) => (isMetadataDocumentId(id) ? documents.find(id) : target.find(id));
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    get: registry.get,
    factory: (model) => (model === 'Client' ? clients : registry.factory(model)),
  };
}
