import { z } from 'zod';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { fetchOnceMore, isIdempotent } from '@acme/service-kit/once-more';
import type { Traits } from './traits.ts';

/**
 * The typed client of the identity service's admin API (Kratos-compatible wire format), for the
 * other services, the seed code, the benchmarks and the tests: `import … from '@acme/identity-contract/admin-client'`.
 * It lives in the contract package, beside the traits both sides share, so a caller loads no server code.
 *
 * Success answers come back parsed; an unknown identity or session is `null` (or `false`) where the
 * API's 404 is an ordinary answer. Everything else throws `IdentityAdminError`, whose `detail`
 * completes the sentence "The identity service …" and never carries a body (bodies may hold codes).
 */

/** A verifiable address as `POST /admin/identities` takes it. */
export interface VerifiableAddressInput {
  value: string;
  via: 'email';
  verified: boolean;
  status?: 'pending' | 'sent' | 'completed';
}

/** The body of `POST /admin/identities`. */
export interface CreateIdentityBody {
  schema_id?: string;
  traits: Traits;
  state?: 'active' | 'inactive';
  credentials?: { password: { config: { password?: string; hashed_password?: string } } };
  verifiable_addresses?: VerifiableAddressInput[];
}

/** One RFC 6902 operation, as `PATCH /admin/identities/{id}` takes them. */
export interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove' | 'test';
  path: string;
  value?: unknown;
}

const traitsSchema = z
  .object({
    userServiceID: z.string().optional(),
    email: z.string().optional(),
  })
  .loose();

const adminIdentitySchema = z
  .object({
    id: z.string().min(1),
    state: z.string().optional(),
    traits: traitsSchema.optional(),
    verifiable_addresses: z.array(z.object({ value: z.string(), verified: z.boolean() }).loose()).optional(),
  })
  .loose();

/** An identity as the admin API answers it (the fields callers read are typed; the rest is kept). */
export type AdminIdentity = z.infer<typeof adminIdentitySchema>;

const adminSessionSchema = z.object({
  id: z.string(),
  active: z.boolean().optional(),
  expires_at: z.string().optional(),
  authenticator_assurance_level: z.string().optional(),
  authentication_methods: z.array(z.object({ method: z.string().optional() }).loose()).optional(),
  identity: z.object({
    id: z.string(),
    state: z.string().optional(),
    traits: z.object({ userServiceID: z.string().optional() }).loose(),
    verifiable_addresses: z.array(z.object({ verified: z.boolean() }).loose()).optional(),
  }),
});

/** A session with its identity (`GET /admin/sessions/{id}?expand=identity`). */
export type AdminSession = z.infer<typeof adminSessionSchema>;

const recoveryCodeSchema = z.object({
  recovery_link: z.string().min(1),
  recovery_code: z.string().min(1).max(64),
  expires_at: z.string().optional(),
});

/** An admin recovery code (`POST /admin/recovery/code`). */
export interface RecoveryCode {
  /** The recovery flow id, read from the link's `flow` parameter. */
  flowId: string;
  /** Six digits. A secret: never logged. */
  code: string;
  link: string;
  expiresAt: string | undefined;
}

const kratosErrorSchema = z.object({
  error: z.object({ message: z.string().optional(), reason: z.string().optional() }),
});

/** Why a call failed. `detail` reads after "The identity service": "answered 500 when …". */
export class IdentityAdminError extends Error {
  readonly detail: string;
  /** The HTTP status, when the service answered. */
  readonly status: number | undefined;
  /** The Kratos error's `reason` (or `message`), when the answer carried one. */
  readonly reason: string | undefined;
  constructor(detail: string, status?: number, reason?: string) {
    super(`The identity service ${detail}.`);
    this.name = 'IdentityAdminError';
    this.detail = detail;
    this.status = status;
    this.reason = reason;
  }
}

export interface IdentityAdminClientOptions {
  /** The admin API's base URL, e.g. `http://127.0.0.1:4434`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when the admin API requires one. */
  adminKey?: string | undefined;
  /** Per request; default 5 s. */
  timeoutMs?: number;
}

export interface IdentityAdminClient {
  createIdentity(body: CreateIdentityBody): Promise<AdminIdentity>;
  /** The identity, or null when there is none with this id. */
  getIdentity(id: string): Promise<AdminIdentity | null>;
  /** Identities, optionally only those whose login identifier is `credentialsIdentifier`. */
  listIdentities(query?: { credentialsIdentifier?: string }): Promise<AdminIdentity[]>;
  /** Applies a JSON Patch; 404 throws with `status` 404. Answers the identity when it came back. */
  patchIdentity(id: string, ops: JsonPatchOp[]): Promise<AdminIdentity | undefined>;
  /** False when there was no such identity. */
  deleteIdentity(id: string): Promise<boolean>;
  /** The active session with its identity, or null when it is unknown or no longer active. */
  getSession(sessionId: string): Promise<AdminSession | null>;
  /** Revokes every session of the identity; false when there was no such identity. */
  deleteSessions(identityId: string): Promise<boolean>;
  /** Ends the identity's unfinished recovery flows; false when there was no such identity. */
  endRecoveryFlows(identityId: string): Promise<boolean>;
  /** A recovery flow in `sent_email` with a code, valid for `expiresIn` (e.g. `72h`); 404 throws. */
  createRecoveryCode(input: { identityId: string; expiresIn?: string }): Promise<RecoveryCode>;
  /** Removes every SSO link to one provider record (organisation + issuer); answers the identities touched. */
  removeOidcLinks(input: { organisationId: string; issuer: string }): Promise<string[]>;
  /**
   * Before an existing account is handed to someone who proves its address: when the address was
   * never proven, every credential and session is removed and the address told. Whether it was.
   */
  reclaimUnproven(identityId: string): Promise<boolean>;
}

interface Answer {
  status: number;
  body: unknown;
}

export function createIdentityAdminClient(options: IdentityAdminClientOptions): IdentityAdminClient {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  const auth = adminAuthHeaders(options.adminKey);

  async function call(method: string, path: string, body?: unknown): Promise<Answer> {
    // An idempotent call whose connection fails before any answer (a rolling restart) goes once more.
    const signal = AbortSignal.timeout(timeoutMs);
    const send = () =>
      fetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...auth,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    let response: Response;
    try {
      response = await (isIdempotent(method) ? fetchOnceMore(send, signal) : send());
    } catch {
      throw new IdentityAdminError('is unreachable');
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new IdentityAdminError('closed the connection');
    }
    if (text.length === 0) return { status: response.status, body: undefined };
    try {
      return { status: response.status, body: JSON.parse(text) as unknown };
    } catch {
      throw new IdentityAdminError(
        `answered ${response.status} with a body that is not JSON`,
        response.status,
      );
    }
  }

  const failed = (res: Answer, when: string) => {
    const error = kratosErrorSchema.safeParse(res.body);
    const reason = error.success ? (error.data.error.reason ?? error.data.error.message) : undefined;
    return new IdentityAdminError(`answered ${res.status} ${when}`, res.status, reason);
  };

  const identityPath = (id: string) => `/admin/identities/${encodeURIComponent(id)}`;

  return {
    async createIdentity(body) {
      const res = await call('POST', '/admin/identities', body);
      if (res.status !== 201 && res.status !== 200) throw failed(res, 'when creating an identity');
      const parsed = adminIdentitySchema.safeParse(res.body);
      if (!parsed.success) throw new IdentityAdminError('answered with an unexpected identity shape');
      return parsed.data;
    },

    async getIdentity(id) {
      const res = await call('GET', identityPath(id));
      if (res.status === 404) return null;
      if (res.status !== 200) throw failed(res, 'for an identity');
      const parsed = adminIdentitySchema.safeParse(res.body);
      if (!parsed.success) throw new IdentityAdminError('answered with an unexpected identity shape');
      return parsed.data;
    },

    async listIdentities(query = {}) {
      const qs =
        query.credentialsIdentifier === undefined
          ? ''
          : `?credentials_identifier=${encodeURIComponent(query.credentialsIdentifier)}`;
      const res = await call('GET', `/admin/identities${qs}`);
      if (res.status !== 200) throw failed(res, 'when listing identities');
      const parsed = z.array(adminIdentitySchema).safeParse(res.body);
      if (!parsed.success) throw new IdentityAdminError('answered with an unexpected identity list shape');
      return parsed.data;
    },

    async patchIdentity(id, ops) {
      const res = await call('PATCH', identityPath(id), ops);
      if (res.status !== 200 && res.status !== 204) throw failed(res, 'when updating an identity');
      const parsed = adminIdentitySchema.safeParse(res.body);
      return parsed.success ? parsed.data : undefined;
    },

    async deleteIdentity(id) {
      const res = await call('DELETE', identityPath(id));
      if (res.status === 404) return false;
      if (res.status === 204 || res.status === 200) return true;
      throw failed(res, 'when deleting an identity');
    },

    async getSession(sessionId) {
      const res = await call('GET', `/admin/sessions/${encodeURIComponent(sessionId)}?expand=identity`);
      if (res.status === 404 || res.status === 400) return null;
      if (res.status !== 200) throw failed(res, 'for a session');
      const parsed = adminSessionSchema.safeParse(res.body);
      if (!parsed.success) throw new IdentityAdminError('answered with an unexpected session shape');
      return parsed.data;
    },

    async deleteSessions(identityId) {
      const res = await call('DELETE', `${identityPath(identityId)}/sessions`);
      if (res.status === 404) return false;
      if (res.status === 204 || res.status === 200) return true;
      throw failed(res, 'when revoking sessions');
    },

    async endRecoveryFlows(identityId) {
      const res = await call('DELETE', `${identityPath(identityId)}/recovery-flows`);
      if (res.status === 404) return false;
      if (res.status === 204 || res.status === 200) return true;
      throw failed(res, 'when ending recovery flows');
    },

    async reclaimUnproven(identityId) {
      const res = await call('POST', `${identityPath(identityId)}/reclaim`);
      const parsed = z.object({ reclaimed: z.boolean() }).safeParse(res.body);
      if (res.status !== 200 || !parsed.success) throw failed(res, 'when reclaiming an unproven account');
      return parsed.data.reclaimed;
    },

    async removeOidcLinks({ organisationId, issuer }) {
      const query = new URLSearchParams({ organisation_id: organisationId, issuer });
      const res = await call('DELETE', `/admin/oidc/links?${query.toString()}`);
      const parsed = z.object({ identity_ids: z.array(z.string()) }).safeParse(res.body);
      if (res.status !== 200 || !parsed.success) throw failed(res, 'when removing SSO links');
      return parsed.data.identity_ids;
    },

    async createRecoveryCode({ identityId, expiresIn }) {
      const res = await call('POST', '/admin/recovery/code', {
        identity_id: identityId,
        ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      });
      if (res.status !== 201 && res.status !== 200) throw failed(res, 'when creating a recovery code');
      const parsed = recoveryCodeSchema.safeParse(res.body);
      const flowId = parsed.success ? flowIdOf(parsed.data.recovery_link) : undefined;
      if (!parsed.success || flowId === undefined) {
        throw new IdentityAdminError('answered with an unexpected recovery code shape');
      }
      return {
        flowId,
        code: parsed.data.recovery_code,
        link: parsed.data.recovery_link,
        expiresAt: parsed.data.expires_at,
      };
    },
  };
}

function flowIdOf(link: string): string | undefined {
  try {
    const flow = new URL(link).searchParams.get('flow');
    return flow !== null && flow.length > 0 && flow.length <= 200 ? flow : undefined;
  } catch {
    return undefined;
  }
}
