import { z } from 'zod';
import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import type { UsersContext } from '../context.ts';
import { currentCaller, userAgentOf } from '../http/caller.ts';
import { parseInput, sendOutput } from '../http/validate.ts';
import { toCsv } from '../terms/csv.ts';
import { listAcceptances } from '../terms/repository.ts';
import {
  acceptTermsAnswerSchema,
  acceptTermsBodySchema,
  acceptanceListSchema,
  currentTermsSchema,
  exportQuerySchema,
} from '../terms/schemas.ts';
import { acceptTerms } from './service.ts';

export function registerTermsPublicRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get('/terms/current', openApi({ responses: { 200: currentTermsSchema } }), async (_request, reply) => {
    reply.header('cache-control', 'no-cache');
    return sendOutput(reply, 200, currentTermsSchema, {
      terms: ctx.config.terms,
      privacy: ctx.config.privacy,
    });
  });

  app.post(
    '/terms/accept',
    openApi({ body: acceptTermsBodySchema, responses: { 200: acceptTermsAnswerSchema } }),
    async (request, reply) => {
      const body = parseInput(acceptTermsBodySchema, request.body);
      const caller = await currentCaller(ctx, request);
      const tosAccepted = await acceptTerms(ctx, caller, {
        documents: body.documents,
        ipAddress: request.ip ?? null,
        userAgent: userAgentOf(request),
      });
      request.log.info({ userId: caller.user.id, tosAccepted }, 'terms accepted');
      return sendOutput(reply, 200, acceptTermsAnswerSchema, { tosAccepted });
    },
  );
}

const CSV_HEADER = [
  'id',
  'userId',
  'email',
  'organisationId',
  'document',
  'version',
  'acceptedAt',
  'ipAddress',
  'userAgent',
  'source',
];

export function registerTermsAdminRoutes(app: FastifyInstance, ctx: UsersContext): void {
  app.get(
    '/admin/terms/acceptances',
    openApi({
      query: exportQuerySchema,
      responses: { 200: { content: { 'application/json': acceptanceListSchema, 'text/csv': z.string() } } },
    }),
    async (request, reply) => {
      const query = parseInput(exportQuerySchema, request.query);
      const acceptances = await listAcceptances(ctx.db, query.organisationId);
      if (query.format === 'json') return sendOutput(reply, 200, acceptanceListSchema, { acceptances });
      const csv = toCsv(
        CSV_HEADER,
        acceptances.map((a) => [
          a.id,
          a.userId,
          a.email,
          a.organisationId,
          a.document,
          a.version,
          a.acceptedAt,
          a.ipAddress,
          a.userAgent,
          a.source,
        ]),
      );
      return reply
        .code(200)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="terms-acceptances.csv"')
        .send(csv);
    },
  );
}
