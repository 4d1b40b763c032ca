import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { JWK, JWTPayload } from 'jose';
import { findPerson, TEAMS_WEB_CLIENT_ID, type Directory } from './directory.ts';
import { registerAuthorize } from './entra/authorize.ts';
import {
  cors,
  createCore,
  findApp,
  str,
  subjectFor,
  timeClaims,
  userClaims,
  type EntraCore,
} from './entra/core.ts';
import { registerDiscovery } from './entra/discovery.ts';
import { EntraError, sendError, unknownClient, unknownUser } from './entra/errors.ts';
import { registerToken } from './entra/token.ts';

/**
 * A Microsoft Entra ID (v2.0 endpoints) stand-in: the authorization-code flow with PKCE as MSAL
 * drives it (code in the fragment, `client_info`), refresh tokens, on-behalf-of, client
 * credentials, discovery and keys, and Microsoft's `AADSTS…` error bodies. One module per
 * endpoint in `entra/`: discovery and keys, authorize and sign-in page, token, errors.
 */

export { EntraError };

export interface EntraOptions {
  directory: Directory;
  clock?: { now(): Date };
  /** Lifetime of access and ID tokens (3600 s, as Entra's default). */
  tokenTtlSeconds?: number;
}

export interface Entra {
  readonly directory: Directory;
  /** Base URL, set once the server listens. */
  base: string;
  readonly publicJwks: { keys: JWK[] };
  register(app: FastifyInstance): void;
  /** Signs any claims with the stand-in's key (tests use it to forge tokens deliberately). */
  sign(claims: JWTPayload, options?: { kid?: string }): Promise<string>;
  issuer(tenantId: string): string;
  /** A Teams SSO token for the app: what Teams' getAuthToken returns for the signed-in user. */
  teamsToken(clientId: string, email: string): Promise<string>;
  /** Verifies a token this stand-in issued (signature and lifetime); undefined if invalid. */
  verify(token: string): Promise<JWTPayload | undefined>;
}

async function teamsToken(core: EntraCore, clientId: string, email: string): Promise<string> {
  const app = findApp(core, clientId);
  if (!app) throw unknownClient(clientId, 'invalid_client');
  const person = findPerson(core.directory, email);
  if (!person) throw unknownUser();
  return core.sign({
    ver: '2.0',
    iss: core.issuer(person.tenant.tenantId),
    aud: app.clientId,
    azp: TEAMS_WEB_CLIENT_ID,
    azpacr: '0',
    scp: 'access_as_user',
    sub: subjectFor(person.user.objectId, app.clientId),
    ...userClaims(person.tenant, person.user),
    email: person.user.email,
    uti: randomBytes(16).toString('base64url'),
    ...timeClaims(core),
  });
}

/** Development helpers (no Microsoft equivalent): the Teams host page uses them. */
function registerDevHelpers(server: FastifyInstance, core: EntraCore): void {
  server.get('/_dev/directory', async (request, reply) => {
    cors(request, reply);
    return reply.send({
      tenants: core.directory.tenants.map((t) => ({
        tenantId: t.tenantId,
        displayName: t.displayName,
        adminConsent: t.adminConsent,
        users: t.users.map((u) => ({
          objectId: u.objectId,
          email: u.email,
          displayName: u.displayName,
          azureRoles: u.azureRoles ?? [],
        })),
      })),
    });
  });
  server.post('/_dev/teams-token', async (request, reply) => {
    cors(request, reply);
    reply.header('cache-control', 'no-store');
    const body = (request.body ?? {}) as Record<string, unknown>;
    try {
      const tokenValue = await teamsToken(core, str(body.clientId) ?? '', str(body.email) ?? '');
      return reply.send({ token: tokenValue });
    } catch (err) {
      if (err instanceof EntraError) return sendError(reply, err, core.clock.now());
      throw err;
    }
  });
}

export async function createEntra(options: EntraOptions): Promise<Entra> {
  const site = { base: '' };
  const core = await createCore(
    options.directory,
    options.clock ?? { now: () => new Date() },
    options.tokenTtlSeconds ?? 3600,
    site,
  );
  return {
    directory: core.directory,
    get base() {
      return site.base;
    },
    set base(value: string) {
      site.base = value;
    },
    publicJwks: core.publicJwks,
    register(server) {
      server.options('/*', async (request, reply) => {
        cors(request, reply);
        return reply.code(204).send();
      });
      registerDiscovery(server, core);
      registerAuthorize(server, core);
      registerToken(server, core);
      registerDevHelpers(server, core);
    },
    sign: (claims, opts) => core.sign(claims, opts),
    issuer: (tenantId) => core.issuer(tenantId),
    teamsToken: (clientId, email) => teamsToken(core, clientId, email),
    verify: (token) => core.verify(token),
  };
}
