import {
  createIdentityAdminClient as createClient,
  IdentityAdminError,
  type AdminSession,
  type JsonPatchOp,
  type RecoveryCode,
} from '@acme/identity-contract/admin-client';
import { isLocale, type Locale } from '@acme/i18n';
import type { CompleteTraits } from '@acme/identity-contract/traits';
import { AppError } from '../http/errors.ts';
import { upstreamError } from './http-json.ts';

export type { RecoveryCode } from '@acme/identity-contract/admin-client';

const SERVICE = 'identity service';

interface CreateIdentityInput {
  /** The user service writes every field of the identity schema `default`. */
  traits: CompleteTraits;
  password?: string | undefined;
  /** Whether the address counts as verified (default true: the operator vouches for it). */
  emailVerified?: boolean;
}

export type IdentitySession = AdminSession;

/**
 * The identity service's admin API as the user service uses it: the identity service's own client
 * (`@acme/identity-contract/admin-client`), with its answers turned into this service's errors (404 is
 * USER_NOT_FOUND, 409 USER_EXISTS, 400 IDENTITY_REJECTED, anything else 502 UPSTREAM_ERROR).
 */
export interface IdentityAdminClient {
  createIdentity(input: CreateIdentityInput): Promise<{ id: string }>;
  deleteIdentity(id: string): Promise<void>;
  /** Identities whose login identifier is this email (Kratos `credentials_identifier`). */
  findIdentitiesByEmail(email: string): Promise<{ id: string; userServiceID: string | undefined }[]>;
  /**
   * The identity's state, link (`traits.userServiceID`) and language (`traits.locale`, when it is one
   * we ship), or null when there is none with this id.
   */
  getIdentity(id: string): Promise<{
    id: string;
    state: string | undefined;
    userServiceID: string | undefined;
    locale: Locale | undefined;
  } | null>;
  /** The session with its identity, or null when it is unknown or no longer active. */
  getSession(sessionId: string): Promise<IdentitySession | null>;
  /** Applies a JSON Patch to the identity; 404 is IDENTITY_NOT_FOUND (as USER_NOT_FOUND). */
  patchIdentity(id: string, ops: JsonPatchOp[]): Promise<void>;
  /** Creates a recovery flow in `sent_email` with a code, valid for `expiresIn` (e.g. `72h`). */
  createRecoveryCode(identityId: string, expiresIn: string): Promise<RecoveryCode>;
  /** Revokes every session of the identity. */
  deleteSessions(identityId: string): Promise<void>;
  /** Ends every unfinished recovery flow of the identity: earlier invitation links stop working. */
  endRecoveryFlows(identityId: string): Promise<void>;
  /** Removes the SSO links made through one provider record (organisation + issuer). */
  removeOidcLinks(organisationId: string, issuer: string): Promise<string[]>;
  /**
   * An account whose address was never proven loses every credential and session, and its address
   * is told, before it is handed to someone who proves the address (an invitation). Whether it did.
   */
  reclaimUnproven(identityId: string): Promise<boolean>;
}

const identityGone = () => new AppError('USER_NOT_FOUND', "The user's identity no longer exists.");

/** Runs one call; `onStatus` may turn a failure into this service's error, anything else is a 502. */
async function guarded<T>(run: () => Promise<T>, onStatus?: (e: IdentityAdminError) => AppError | undefined) {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof IdentityAdminError)) throw error;
    throw onStatus?.(error) ?? upstreamError(SERVICE, error.detail);
  }
}

export function createIdentityAdminClient(
  baseUrl: string,
  timeoutMs: number,
  adminKey?: string,
): IdentityAdminClient {
  const client = createClient({ baseUrl, timeoutMs, adminKey });
  const on404 = (e: IdentityAdminError) => (e.status === 404 ? identityGone() : undefined);
  return {
    async createIdentity(input) {
      const address = input.traits.email;
      const created = await guarded(
        () =>
          client.createIdentity({
            schema_id: 'default',
            traits: input.traits,
            ...(input.password === undefined
              ? {}
              : { credentials: { password: { config: { password: input.password } } } }),
            verifiable_addresses: [
              input.emailVerified === false
                ? { value: address, via: 'email', verified: false, status: 'pending' }
                : { value: address, via: 'email', verified: true, status: 'completed' },
            ],
          }),
        (e) => {
          if (e.status === 409)
            return new AppError('USER_EXISTS', 'An identity with this email address already exists.');
          if (e.status === 400) {
            return new AppError(
              'IDENTITY_REJECTED',
              `The identity service refused the identity${e.reason ? `: ${e.reason}` : '.'}`,
            );
          }
          return undefined;
        },
      );
      return { id: created.id };
    },

    async deleteIdentity(id) {
      await guarded(() => client.deleteIdentity(id));
    },

    async findIdentitiesByEmail(email) {
      const found = await guarded(() => client.listIdentities({ credentialsIdentifier: email }));
      return found.map((i) => ({ id: i.id, userServiceID: i.traits?.userServiceID }));
    },

    async getIdentity(id) {
      const found = await guarded(() => client.getIdentity(id));
      if (!found) return null;
      const locale = (found.traits as { locale?: unknown } | undefined)?.locale;
      return {
        id: found.id,
        state: found.state,
        userServiceID: found.traits?.userServiceID,
        locale: isLocale(locale) ? locale : undefined,
      };
    },

    getSession: (sessionId) => guarded(() => client.getSession(sessionId)),

    async patchIdentity(id, ops) {
      await guarded(() => client.patchIdentity(id, ops), on404);
    },

    createRecoveryCode: (identityId, expiresIn) =>
      guarded(() => client.createRecoveryCode({ identityId, expiresIn }), on404),

    async endRecoveryFlows(identityId) {
      // false: the identity is gone, and with it anything its links could open.
      await guarded(() => client.endRecoveryFlows(identityId));
    },

    async deleteSessions(identityId) {
      await guarded(() => client.deleteSessions(identityId));
    },

    reclaimUnproven: (identityId) => guarded(() => client.reclaimUnproven(identityId), on404),

    removeOidcLinks: (organisationId, issuer) =>
      guarded(() => client.removeOidcLinks({ organisationId, issuer })),
  };
}
