import { orgParamsSchema } from './schemas.ts';
import { openApi } from '@acme/service-kit/openapi';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { hasOwnKey } from '@acme/service-kit/prototype';
import { z } from 'zod';
import {
  LOCKOUT_CONFIRMATION_REQUIRED,
  setTrustedNetworksSchema,
  trustedNetworksSchema,
} from '@acme/users-contract/networks';
import type { UsersContext } from '../context.ts';
import { bearerToken } from '../http/bearer.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { rateLimiter } from '../http/rate-limit.ts';
import { authoriseConsole, originOf } from '../access/auth.ts';
import { operatorOrigin, recordEvent } from '../events/events.ts';
import {
  addressInRanges,
  parseRange,
  readTrustedNetworks,
  requireTrustedNetwork,
  writeTrustedNetworks,
} from '../access/networks.ts';

/** ManageIPWhitelist: the spec's permission for the organisation's trusted networks. */
const PERMISSION = 'ManageIPWhitelist';

/** The contract's shape, with the service's bound on the number of ranges; each range parsed and normalised. */
function setSchema(maxRanges: number) {
  return setTrustedNetworksSchema.transform((body, issue) => {
    if (body.ranges.length > maxRanges) {
      issue.addIssue({ code: 'custom', path: ['ranges'], message: `at most ${maxRanges} ranges` });
      return z.NEVER;
    }
    const parsed: string[] = [];
    for (const [i, text] of body.ranges.entries()) {
      const range = parseRange(text);
      if (range === null) {
        issue.addIssue({
          code: 'custom',
          path: ['ranges', i],
          message: `not an IPv4 or IPv6 CIDR range: ${text}`,
        });
        return z.NEVER;
      }
      if (!parsed.includes(range)) parsed.push(range);
    }
    return { ...body, ranges: parsed };
  });
}

/** `POST /admin/trusted-networks/check` (operator network: the identity and authorization servers). */
const checkSchema = z.union([
  z.object({ identityId: uuidSchema, clientAddress: z.string().max(64).optional() }).strict(),
  z.object({ userId: uuidSchema, clientAddress: z.string().max(64).optional() }).strict(),
  z.object({ organisationId: uuidSchema, clientAddress: z.string().max(64).optional() }).strict(),
]);

const organisationParams = z.object({ organisationId: uuidSchema }).strict();

/** The console's trusted networks section: `GET`/`PUT /console/organisations/:id/trusted-networks`. */
export function registerTrustedNetworkRoutes(app: FastifyInstance, ctx: UsersContext): void {
  const path = '/console/organisations/:organisationId/trusted-networks';
  const set = setSchema(ctx.config.console.maxTrustedRanges);
  const answer = async (organisationId: string, yourAddress: string) => {
    const { ranges, updatedAt } = await readTrustedNetworks(ctx.db, organisationId);
    return { ranges, yourAddress, updatedAt: updatedAt && new Date(updatedAt).toISOString() };
  };

  app.get(
    path,
    openApi({ params: orgParamsSchema, responses: { 200: trustedNetworksSchema } }),
    async (request, reply) => {
      const { organisationId } = await authoriseConsole(ctx, request, PERMISSION, false);
      return sendOutput(reply, 200, trustedNetworksSchema, await answer(organisationId, request.ip));
    },
  );

  app.put(
    path,
    openApi({ params: orgParamsSchema, body: set, responses: { 200: trustedNetworksSchema } }),
    async (request, reply) => {
      const { caller, organisationId } = await authoriseConsole(ctx, request, PERMISSION, true);
      const body = parseInput(set, request.body);
      // An admin cannot lock themselves out by accident: a list that excludes the address this
      // request came from needs an explicit confirmation.
      if (
        body.ranges.length > 0 &&
        !addressInRanges(request.ip, body.ranges) &&
        body.confirmLockout !== true
      ) {
        throw new AppError(
          LOCKOUT_CONFIRMATION_REQUIRED,
          `Your current address (${request.ip}) is outside these ranges: saving them signs you out of reach. Confirm to save anyway.`,
          {},
          { yourAddress: request.ip },
        );
      }
      const now = ctx.clock.now();
      await ctx.db.transaction().execute(async (trx) => {
        const before = await readTrustedNetworks(trx, organisationId);
        await writeTrustedNetworks(trx, organisationId, body.ranges, caller.userId, now);
        await recordEvent(
          trx,
          originOf(caller, request),
          {
            organisationId,
            type: 'trusted_networks.changed',
            subjectId: null,
            details: {
              before: before.ranges.join(' ') || '(none)',
              after: body.ranges.join(' ') || '(none)',
            },
          },
          now,
        );
      });
      return sendOutput(reply, 200, trustedNetworksSchema, await answer(organisationId, request.ip));
    },
  );
}

/**
 * Rate limits on `/console/*`, before authentication (so before the introspection call they
 * would otherwise multiply): per access token (by the SHA-256 of the bearer token, never the token
 * itself; a header that carries no bearer token reaches no introspection and counts per address
 * only) and per client address, with the user service's shared fixed-window counters.
 */
export function registerConsoleRateLimits(app: FastifyInstance, ctx: UsersContext): void {
  const { perToken, perIp, windowSeconds } = ctx.config.console;
  const byToken = rateLimiter(ctx, 'console-token', perToken, windowSeconds);
  const byIp = rateLimiter(ctx, 'console-ip', perIp, windowSeconds);
  app.addHook('onRequest', async (request) => {
    if (!request.url.startsWith('/console/') || request.method === 'OPTIONS') return;
    const now = ctx.clock.now();
    const decisions = [await byIp.hit(request.ip, now)];
    // Keyed by the token itself, however the header spells the scheme and the whitespace: each
    // spelling of one token would otherwise get its own budget.
    const token = bearerToken(request.headers.authorization);
    if (token !== undefined) {
      const digest = createHash('sha256').update(token, 'utf8').digest('base64url');
      decisions.push(await byToken.hit(digest, now));
    }
    const refused = decisions.filter((d) => !d.allowed);
    if (refused.length > 0) {
      const retryAfter = Math.max(...refused.map((d) => d.retryAfterSec));
      throw new AppError('RATE_LIMITED', 'Too many console requests. Try again later.', {
        'retry-after': String(retryAfter),
      });
    }
  });
}

/**
 * `POST /admin/trusted-networks/check {identityId | userId | organisationId, clientAddress}`: 204 when the
 * organisation has no trusted networks or the address is inside them, 403 `NETWORK_NOT_TRUSTED`
 * otherwise. The identity service asks at every sign-in that creates a session; the authorization
 * server at every API client's token request.
 */
export function registerTrustedNetworkAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.post(
    '/admin/trusted-networks/check',
    openApi({ body: checkSchema, responses: { 204: null } }),
    async (request, reply) => {
      const body = parseInput(checkSchema, request.body);
      let organisationId: string | undefined;
      if (hasOwnKey(body, 'organisationId')) organisationId = body.organisationId;
      else {
        const user = await ctx.db
          .selectFrom('users')
          .select('organisation_id')
          .where((eb) =>
            hasOwnKey(body, 'identityId')
              ? eb('identity_id', '=', body.identityId)
              : eb('id', '=', body.userId),
          )
          .executeTakeFirst();
        organisationId = user?.organisation_id;
      }
      if (organisationId !== undefined) {
        await requireTrustedNetwork(ctx.db, organisationId, body.clientAddress);
      }
      reply.header('cache-control', 'no-store');
      return reply.code(204).send();
    },
  );

  // The operator's way back for an organisation whose admins locked themselves out.
  app.delete(
    '/admin/organisations/:organisationId/trusted-networks',
    openApi({ params: organisationParams, responses: { 204: null } }),
    async (request, reply) => {
      const { organisationId } = parseInput(organisationParams, request.params);
      const now = ctx.clock.now();
      await ctx.db.transaction().execute(async (trx) => {
        const before = await readTrustedNetworks(trx, organisationId);
        if (before.ranges.length === 0) return;
        await writeTrustedNetworks(trx, organisationId, [], null, now);
        await recordEvent(
          trx,
          operatorOrigin(),
          {
            organisationId,
            type: 'trusted_networks.changed',
            subjectId: null,
            details: { before: before.ranges.join(' '), after: '(none)' },
          },
          now,
        );
      });
      return reply.code(204).send();
    },
  );
}
