import { z } from 'zod';
import { AppError } from '../http/errors.ts';
import { requestJson, upstreamError } from './http-json.ts';

const SERVICE = 'identity service';

/** The identity traits, exactly as the identity schema `default` defines them. */
export interface IdentityTraits {
  userServiceID: string;
  email: string;
  name: { first: string; last: string };
  onboarding: {
    isGitUser: boolean;
    mfaSetupDeadline: string | null;
    gitProviderConnected: boolean;
    tosAccepted: boolean;
  };
}

export interface CreateIdentityInput {
  traits: IdentityTraits;
  password?: string | undefined;
  /** Whether the address counts as verified (default true: the operator vouches for it). */
  emailVerified?: boolean;
}

/** One RFC 6902 operation, as Kratos's `PATCH /admin/identities/{id}` takes them. */
export interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove' | 'test';
  path: string;
  value?: unknown;
}

/** An admin recovery code (Kratos `POST /admin/recovery/code`): the product's invitation. */
export interface RecoveryCode {
  /** The recovery flow id, read from `recovery_link`'s `flow` parameter. */
  flowId: string;
  /** Six digits. A secret: never logged, never answered. */
  code: string;
  expiresAt: string | undefined;
}

const recoveryCodeSchema = z.object({
  recovery_link: z.string().min(1),
  recovery_code: z.string().min(1).max(64),
  expires_at: z.string().optional(),
});

const identitySchema = z.object({ id: z.string().min(1) });

const identityListSchema = z.array(
  z.object({ id: z.string(), traits: z.object({ userServiceID: z.string().optional() }).loose().optional() }),
);

const sessionSchema = z.object({
  id: z.string(),
  active: z.boolean().optional(),
  expires_at: z.string().optional(),
  authenticator_assurance_level: z.string().optional(),
  authentication_methods: z.array(z.object({ method: z.string().optional() }).loose()).optional(),
  identity: z.object({
    id: z.string(),
    traits: z.object({ userServiceID: z.string().optional() }).loose(),
  }),
});

export type IdentitySession = z.infer<typeof sessionSchema>;

const kratosErrorSchema = z.object({
  error: z.object({ message: z.string().optional(), reason: z.string().optional() }),
});

/** The identity service's (Kratos-compatible) admin API, as far as the user service uses it. */
export interface IdentityAdminClient {
  createIdentity(input: CreateIdentityInput): Promise<{ id: string }>;
  deleteIdentity(id: string): Promise<void>;
  /** Identities whose login identifier is this email (Kratos `credentials_identifier`). */
  findIdentitiesByEmail(email: string): Promise<{ id: string; userServiceID: string | undefined }[]>;
  /** The session with its identity, or null when it is unknown or no longer active. */
  getSession(sessionId: string): Promise<IdentitySession | null>;
  /** Applies a JSON Patch to the identity; 404 is IDENTITY_NOT_FOUND (as USER_NOT_FOUND). */
  patchIdentity(id: string, ops: JsonPatchOp[]): Promise<void>;
  /** Creates a recovery flow in `sent_email` with a code, valid for `expiresIn` (e.g. `72h`). */
  createRecoveryCode(identityId: string, expiresIn: string): Promise<RecoveryCode>;
  /** Revokes every session of the identity. */
  deleteSessions(identityId: string): Promise<void>;
}

export function createIdentityAdminClient(baseUrl: string, timeoutMs: number): IdentityAdminClient {
  return {
    async createIdentity(input) {
      const body = {
        schema_id: 'default',
        traits: input.traits,
        ...(input.password === undefined
          ? {}
          : { credentials: { password: { config: { password: input.password } } } }),
        verifiable_addresses: [
          input.emailVerified === false
            ? { value: input.traits.email, via: 'email', verified: false, status: 'pending' }
            : { value: input.traits.email, via: 'email', verified: true, status: 'completed' },
        ],
      };
      const res = await requestJson(SERVICE, `${baseUrl}/admin/identities`, {
        method: 'POST',
        body,
        timeoutMs,
      });
      if (res.status === 201 || res.status === 200) {
        const parsed = identitySchema.safeParse(res.body);
        if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected identity shape');
        return parsed.data;
      }
      if (res.status === 409)
        throw new AppError('USER_EXISTS', 'An identity with this email address already exists.');
      if (res.status === 400) {
        const reason = kratosErrorSchema.safeParse(res.body);
        const detail = reason.success ? (reason.data.error.reason ?? reason.data.error.message) : undefined;
        throw new AppError(
          'IDENTITY_REJECTED',
          `The identity service refused the identity${detail ? `: ${detail}` : '.'}`,
        );
      }
      throw upstreamError(SERVICE, `answered ${res.status} when creating an identity`);
    },

    async deleteIdentity(id) {
      const res = await requestJson(SERVICE, `${baseUrl}/admin/identities/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        timeoutMs,
      });
      if (res.status === 204 || res.status === 200 || res.status === 404) return;
      throw upstreamError(SERVICE, `answered ${res.status} when deleting an identity`);
    },

    async findIdentitiesByEmail(email) {
      const url = `${baseUrl}/admin/identities?credentials_identifier=${encodeURIComponent(email)}`;
      const res = await requestJson(SERVICE, url, { method: 'GET', timeoutMs });
      if (res.status !== 200) throw upstreamError(SERVICE, `answered ${res.status} when listing identities`);
      const parsed = identityListSchema.safeParse(res.body);
      if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected identity list shape');
      return parsed.data.map((i) => ({ id: i.id, userServiceID: i.traits?.userServiceID }));
    },

    async getSession(sessionId) {
      const url = `${baseUrl}/admin/sessions/${encodeURIComponent(sessionId)}?expand=identity`;
      const res = await requestJson(SERVICE, url, { method: 'GET', timeoutMs });
      if (res.status === 404 || res.status === 400) return null;
      if (res.status !== 200) throw upstreamError(SERVICE, `answered ${res.status} for a session`);
      const parsed = sessionSchema.safeParse(res.body);
      if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected session shape');
      return parsed.data;
    },

    async patchIdentity(id, ops) {
      const res = await requestJson(SERVICE, `${baseUrl}/admin/identities/${encodeURIComponent(id)}`, {
        method: 'PATCH',
        body: ops,
        timeoutMs,
      });
      if (res.status === 200 || res.status === 204) return;
      if (res.status === 404) throw new AppError('USER_NOT_FOUND', "The user's identity no longer exists.");
      throw upstreamError(SERVICE, `answered ${res.status} when updating an identity`);
    },

    async createRecoveryCode(identityId, expiresIn) {
      const res = await requestJson(SERVICE, `${baseUrl}/admin/recovery/code`, {
        method: 'POST',
        body: { identity_id: identityId, expires_in: expiresIn },
        timeoutMs,
      });
      if (res.status === 404) throw new AppError('USER_NOT_FOUND', "The user's identity no longer exists.");
      if (res.status !== 201 && res.status !== 200) {
        throw upstreamError(SERVICE, `answered ${res.status} when creating a recovery code`);
      }
      const parsed = recoveryCodeSchema.safeParse(res.body);
      const flowId = parsed.success ? flowIdOf(parsed.data.recovery_link) : undefined;
      if (!parsed.success || flowId === undefined) {
        throw upstreamError(SERVICE, 'answered with an unexpected recovery code shape');
      }
      return { flowId, code: parsed.data.recovery_code, expiresAt: parsed.data.expires_at };
    },

    async deleteSessions(identityId) {
      const url = `${baseUrl}/admin/identities/${encodeURIComponent(identityId)}/sessions`;
      const res = await requestJson(SERVICE, url, { method: 'DELETE', timeoutMs });
      if (res.status === 204 || res.status === 200 || res.status === 404) return;
      throw upstreamError(SERVICE, `answered ${res.status} when revoking sessions`);
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
