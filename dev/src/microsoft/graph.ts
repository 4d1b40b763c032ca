import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { findPersonById, findTenant, GRAPH_APP_ID, GRAPH_RESOURCE_URL } from './directory.ts';
import type { Entra } from './entra.ts';

/**
 * Microsoft Graph stand-in: `GET /v1.0/me` and `GET /v1.0/organization`, for bearer tokens the
 * Entra stand-in issued for Graph, with the scopes each call needs.
 */

function graphError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  now: Date,
): FastifyReply {
  const requestId = randomUUID();
  return reply.code(status).send({
    error: {
      code,
      message,
      innerError: {
        date: now.toISOString().replace(/\.\d+Z$/, ''),
        'request-id': requestId,
        'client-request-id': requestId,
      },
    },
  });
}

export function registerGraph(
  server: FastifyInstance,
  entra: Entra,
  clock: { now(): Date } = { now: () => new Date() },
): void {
  /** The caller's token claims if valid for Graph with one of `scopes`; otherwise answers and returns undefined. */
  async function authorize(request: FastifyRequest, reply: FastifyReply, scopes: string[]) {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) {
      graphError(reply, 401, 'InvalidAuthenticationToken', 'Access token is empty.', clock.now());
      return undefined;
    }
    const claims = await entra.verify(match[1]!);
    if (!claims) {
      graphError(
        reply,
        401,
        'InvalidAuthenticationToken',
        'Access token validation failure. Invalid signature, issuer or lifetime.',
        clock.now(),
      );
      return undefined;
    }
    if (claims.aud !== GRAPH_APP_ID && claims.aud !== GRAPH_RESOURCE_URL) {
      graphError(
        reply,
        401,
        'InvalidAuthenticationToken',
        'Access token validation failure. Invalid audience.',
        clock.now(),
      );
      return undefined;
    }
    const granted = new Set(typeof claims.scp === 'string' ? claims.scp.split(' ') : []);
    if (!scopes.some((s) => granted.has(s))) {
      graphError(
        reply,
        403,
        'Authorization_RequestDenied',
        'Insufficient privileges to complete the operation.',
        clock.now(),
      );
      return undefined;
    }
    return claims;
  }

  server.get('/v1.0/me', async (request, reply) => {
    const claims = await authorize(request, reply, ['User.Read', 'User.ReadWrite', 'User.Read.All']);
    if (!claims) return reply;
    const person = findPersonById(entra.directory, String(claims.tid), String(claims.oid));
    if (!person)
      return graphError(reply, 404, 'Request_ResourceNotFound', "Resource 'me' does not exist.", clock.now());
    const { user } = person;
    return reply.send({
      '@odata.context': `${GRAPH_RESOURCE_URL}/v1.0/$metadata#users/$entity`,
      businessPhones: [],
      displayName: user.displayName,
      givenName: user.givenName,
      jobTitle: null,
      mail: user.email,
      mobilePhone: null,
      officeLocation: null,
      preferredLanguage: 'en-GB',
      surname: user.surname,
      userPrincipalName: user.email,
      id: user.objectId,
    });
  });

  server.get('/v1.0/organization', async (request, reply) => {
    const claims = await authorize(request, reply, ['Organization.Read.All', 'Directory.Read.All']);
    if (!claims) return reply;
    const tenant = findTenant(entra.directory, String(claims.tid));
    if (!tenant) return reply.send({ value: [] });
    return reply.send({
      '@odata.context': `${GRAPH_RESOURCE_URL}/v1.0/$metadata#organization`,
      value: [
        {
          id: tenant.tenantId,
          displayName: tenant.displayName,
          tenantType: 'AAD',
          verifiedDomains: tenant.domains.map((d) => ({
            capabilities: 'Email, OfficeCommunicationsOnline',
            isDefault: d.isDefault,
            isInitial: false,
            name: d.name,
            type: 'Managed',
          })),
        },
      ],
    });
  });

  server.setNotFoundHandler((request, reply) =>
    graphError(
      reply,
      400,
      'BadRequest',
      `Resource not found for the segment '${request.url.split('?')[0]}'.`,
      clock.now(),
    ),
  );
}
