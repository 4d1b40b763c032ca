import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTPayload,
} from 'jose';
import {
  findTenant,
  isGuid,
  type Directory,
  type DirectoryTenant,
  type DirectoryUser,
  type EntraApp,
} from '../directory.ts';

/**
 * The Entra stand-in's shared state (signing key, directory, clock and the stores of sign-ins, codes,
 * refresh tokens and sessions) and the small helpers every endpoint module uses.
 */

export interface SignInRequest {
  app: EntraApp;
  pathTenant: string;
  redirectUri: string;
  responseMode: 'fragment' | 'query';
  state?: string;
  nonce?: string;
  scopes: string[];
  codeChallenge?: string;
  codeChallengeMethod?: string;
  loginHint?: string;
  expiresAt: number;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
  tenantId: string;
  objectId: string;
  expiresAt: number;
}

interface IssuedRefreshToken {
  clientId: string;
  tenantId: string;
  objectId: string;
  expiresAt: number;
}

export const SESSION_COOKIE = 'ESTSAUTH';
const MAX_STORED = 10_000;

export interface EntraCore {
  readonly directory: Directory;
  readonly clock: { now(): Date };
  /** Lifetime of access and ID tokens, in seconds. */
  readonly ttl: number;
  /** Where the base URL lives (set once the server listens). */
  readonly site: { base: string };
  readonly publicJwks: { keys: JWK[] };
  readonly signIns: Map<string, SignInRequest>;
  readonly codes: Map<string, IssuedCode>;
  readonly refreshTokens: Map<string, IssuedRefreshToken>;
  readonly sessions: Map<string, { tenantId: string; objectId: string }>;
  sign(claims: JWTPayload, options?: { kid?: string }): Promise<string>;
  verify(token: string): Promise<JWTPayload | undefined>;
  issuer(tenantId: string): string;
}

export async function createCore(
  directory: Directory,
  clock: { now(): Date },
  ttl: number,
  site: { base: string },
): Promise<EntraCore> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const kid = randomBytes(16).toString('base64url');
  const publicJwk = { ...(await exportJWK(publicKey)), kid, use: 'sig', alg: 'RS256' };
  const publicJwks = { keys: [publicJwk] };
  const localJwks = createLocalJWKSet(publicJwks);
  const issuer = (tenantId: string) => `${site.base}/${tenantId}/v2.0`;
  return {
    directory,
    clock,
    ttl,
    site,
    publicJwks,
    signIns: new Map(),
    codes: new Map(),
    refreshTokens: new Map(),
    sessions: new Map(),
    issuer,
    async sign(claims, opts = {}) {
      return new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: opts.kid ?? kid })
        .sign(privateKey);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, localJwks, {
          algorithms: ['RS256'],
          currentDate: clock.now(),
        });
        const tid = typeof payload.tid === 'string' ? payload.tid : '';
        if (payload.iss !== issuer(tid)) return undefined;
        return payload;
      } catch {
        return undefined;
      }
    },
  };
}

const b64url = (value: string) => Buffer.from(value).toString('base64url');

/** MSAL's `client_info`: the user's object id and tenant id. */
export function clientInfo(tenant: DirectoryTenant, user: DirectoryUser): string {
  return b64url(JSON.stringify({ uid: user.objectId, utid: tenant.tenantId }));
}

export function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

export function boundedSet<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= MAX_STORED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
}

/** A non-empty string parameter of at most 4 KiB, else undefined. */
export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 && value.length <= 4096 ? value : undefined;
}

export function timeClaims(core: EntraCore) {
  const now = Math.floor(core.clock.now().getTime() / 1000);
  return { iat: now, nbf: now, exp: now + core.ttl };
}

export function userClaims(tenant: DirectoryTenant, user: DirectoryUser) {
  return {
    tid: tenant.tenantId,
    oid: user.objectId,
    name: user.displayName,
    preferred_username: user.email,
  };
}

/** Pairwise `sub`, as Entra's: stable per user and application. */
export function subjectFor(objectId: string, clientId: string): string {
  return createHash('sha256').update(`${objectId}:${clientId}`).digest('base64url').slice(0, 43);
}

export function findApp(core: EntraCore, clientId: unknown): EntraApp | undefined {
  return typeof clientId === 'string' ? core.directory.apps.find((a) => a.clientId === clientId) : undefined;
}

export function appByAudience(core: EntraCore, audience: string): EntraApp | undefined {
  return core.directory.apps.find((a) => a.clientId === audience || a.appIdUri === audience);
}

export function knownPathTenant(core: EntraCore, tenant: string): boolean {
  if (tenant === 'organizations' || tenant === 'common') return true;
  if (isGuid(tenant)) return !!findTenant(core.directory, tenant);
  return core.directory.tenants.some((t) => t.domains.some((d) => d.name === tenant.toLowerCase()));
}

export function tenantForPath(core: EntraCore, tenant: string): DirectoryTenant | undefined {
  if (isGuid(tenant)) return findTenant(core.directory, tenant);
  return core.directory.tenants.find((t) => t.domains.some((d) => d.name === tenant.toLowerCase()));
}

export function cors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (typeof origin === 'string') {
    reply.header('access-control-allow-origin', origin);
    reply.header('vary', 'Origin');
    reply.header('access-control-allow-methods', 'GET, POST, OPTIONS');
    reply.header(
      'access-control-allow-headers',
      'Content-Type, Authorization, client-request-id, return-client-request-id, x-client-sku, x-client-ver, x-client-os, x-client-cpu, x-client-current-telemetry, x-client-last-telemetry, x-app-name, x-app-ver, x-ms-lib-capability',
    );
    reply.header('access-control-max-age', '600');
  }
}
