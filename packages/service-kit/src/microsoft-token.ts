import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload } from 'jose';

/**
 * Verifies the Microsoft (Entra ID) tokens our services accept from a signed-in person: MSAL's ID
 * token, or the Teams SSO token. One implementation, so that the user service (`/m365/login`,
 * activation) and the agent service (`/misc/unregistered-user`) accept exactly the same tokens.
 *
 * A token counts when:
 * - it is signed RS256 with a key of the tenant it names (`{authority}/{tid}/discovery/v2.0/keys`),
 *   by that tenant's issuer (`{authority}/{tid}/v2.0`), within its lifetime (60 s leeway);
 * - its audience is our application (client id, or the Application ID URI);
 * - the application that obtained it is one we allow: `azp` (v2) or `appid` (v1) is our own client
 *   id or one of Microsoft's Teams clients (Teams SSO). A token without either is an ID token, which
 *   Entra issues only to the application named in `aud`, so its audience must be our client id.
 *   A third-party application that got a token for our API (its `azp` is its own id) is refused.
 * Tokens are never logged or put in messages.
 */

/**
 * Microsoft's published client ids of the Teams clients that request SSO tokens for a Teams app
 * ("Authorize client applications" in Teams' SSO set-up, learn.microsoft.com).
 */
export const TEAMS_CLIENT_IDS = {
  desktopAndMobile: '1fec8e78-bce4-4aaf-ab1b-5451cc387264',
  web: '5e3ce6c0-2b1f-4285-8d4b-75ee78787346',
} as const;

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_TENANT_KEY_SETS = 200;

export interface MicrosoftTokenOptions {
  /** Like `https://login.microsoftonline.com` (no trailing slash). */
  authorityUrl: string;
  /** Our application's client id (lower case GUID). */
  clientId: string;
  /** Our Application ID URI (`api://…`), also accepted as an audience. */
  appIdUri?: string | undefined;
  timeoutMs: number;
  clock: { now(): Date };
}

export interface MicrosoftUser {
  tenantId: string;
  objectId: string;
  /** The token's address (`email`, else `preferred_username`), lower case. */
  email?: string;
  /** Every address the token names (`email`, `preferred_username`, `upn`), lower case. */
  addresses: string[];
  name?: string;
}

/** Why a token was not accepted: `invalid` (401 for the caller) or `unavailable` (the keys did not come). */
export class MicrosoftTokenError extends Error {
  readonly kind: 'invalid' | 'unavailable' | 'foreign-client';
  constructor(kind: 'invalid' | 'unavailable' | 'foreign-client') {
    super(
      kind === 'unavailable'
        ? 'The Microsoft identity platform did not answer with its keys.'
        : kind === 'foreign-client'
          ? 'The Microsoft token was obtained by an application that is not allowed here.'
          : 'The Microsoft token is invalid or has expired.',
    );
    this.name = 'MicrosoftTokenError';
    this.kind = kind;
  }
}

export interface MicrosoftTokenVerifier {
  /** Signature, tenant issuer, our audience, lifetime: the claims, or MicrosoftTokenError. */
  verifyEntraToken(token: string): Promise<JWTPayload>;
  /** A person's token (ID token or Teams SSO token) obtained by an allowed application. */
  verifyUserToken(token: string): Promise<MicrosoftUser>;
  /** The client ids whose tokens `verifyUserToken` accepts. */
  readonly allowedClientIds: readonly string[];
}

export function createMicrosoftTokenVerifier(options: MicrosoftTokenOptions): MicrosoftTokenVerifier {
  const clientId = options.clientId.toLowerCase();
  const audiences = [clientId, ...(options.appIdUri ? [options.appIdUri] : [])];
  const allowedClientIds = [clientId, TEAMS_CLIENT_IDS.desktopAndMobile, TEAMS_CLIENT_IDS.web];
  const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

  function keysOf(tenantId: string) {
    let keys = keySets.get(tenantId);
    if (!keys) {
      if (keySets.size >= MAX_TENANT_KEY_SETS) keySets.delete(keySets.keys().next().value!);
      keys = createRemoteJWKSet(new URL(`${options.authorityUrl}/${tenantId}/discovery/v2.0/keys`), {
        timeoutDuration: options.timeoutMs,
      });
      keySets.set(tenantId, keys);
    }
    return keys;
  }

  async function verifyEntraToken(token: string): Promise<JWTPayload> {
    let tenantId: string;
    try {
      const unverified = decodeJwt(token);
      tenantId = typeof unverified.tid === 'string' ? unverified.tid.toLowerCase() : '';
    } catch {
      throw new MicrosoftTokenError('invalid');
    }
    if (!GUID.test(tenantId)) throw new MicrosoftTokenError('invalid');
    try {
      const { payload } = await jwtVerify(token, keysOf(tenantId), {
        issuer: `${options.authorityUrl}/${tenantId}/v2.0`,
        audience: audiences,
        algorithms: ['RS256'],
        currentDate: options.clock.now(),
        clockTolerance: 60,
      });
      return payload;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_JWKS_TIMEOUT') {
        throw new MicrosoftTokenError('unavailable');
      }
      throw new MicrosoftTokenError('invalid');
    }
  }

  function lower(value: unknown): string | undefined {
    return typeof value === 'string' && value.length > 0 ? value.toLowerCase() : undefined;
  }

  return {
    allowedClientIds,
    verifyEntraToken,
    async verifyUserToken(token) {
      const claims = await verifyEntraToken(token);
      const client = lower(claims.azp) ?? lower(claims.appid);
      if (client === undefined) {
        // An ID token: Entra issues it only to the application in `aud`.
        // (`roles` may be there: app roles assigned to the person; `scp` only in access tokens.)
        if (claims.aud !== clientId || claims.scp !== undefined) {
          throw new MicrosoftTokenError('foreign-client');
        }
      } else if (!allowedClientIds.includes(client)) {
        throw new MicrosoftTokenError('foreign-client');
      }
      const tid = String(claims.tid).toLowerCase();
      const oid = lower(claims.oid) ?? '';
      if (!GUID.test(oid)) throw new MicrosoftTokenError('invalid');
      const email = lower(claims.email) ?? lower(claims.preferred_username);
      const addresses = [
        ...new Set([claims.email, claims.preferred_username, claims.upn].map(lower).filter((a) => !!a)),
      ] as string[];
      return {
        tenantId: tid,
        objectId: oid,
        ...(email ? { email } : {}),
        addresses,
        ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
      };
    },
  };
}
