import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { IdentityContext } from '../context.ts';
import { recordSecurityEvent } from '../db/security-events.ts';
import { errors } from '../errors/identity-error.ts';
import { readJson } from '../http/body.ts';
import { qs } from '../http/query.ts';
import { revokeIdentitySessions } from '../sessions/repo.ts';
import { applyJsonPatch } from './json-patch.ts';
import { endRecoveryFlows } from './recovery-flows.ts';
import { reclaimUnprovenAccount } from './unproven.ts';
import { isUuid } from '../db/db.ts';
import { listLinkRepairs, removeLinks } from '../strategies/oidc/accounts.ts';
import { loadIdentity, loadMany, normalizeEmail, toApiIdentity } from './repo.ts';
import {
  CreateIdentityBodySchema,
  createIdentity,
  currentDocument,
  parseBody,
  updateIdentity,
  type UpdateInput,
} from './service.ts';

const UpdateBodySchema = CreateIdentityBodySchema;

const IdParamsSchema = z.object({ id: z.string() });
const ReclaimedSchema = z.object({ reclaimed: z.boolean() });
const RemovedLinksSchema = z.object({ identity_ids: z.array(z.string()) });
const LinkRepairsSchema = z.object({
  repairs: z.array(
    z.object({
      identity_id: z.string(),
      provider: z.string(),
      subject: z.string(),
      finding: z.string(),
      organisation_id: z.string().optional(),
      issuer: z.string().nullable().optional(),
      repaired_at: z.iso.datetime(),
    }),
  ),
});

const OidcLinksQuerySchema = z.object({
  organisation_id: z.string().refine(isUuid),
  // An OIDC issuer, or a SAML IdP's entity id (a URI of up to 1024 characters, as the user service takes it).
  issuer: z
    .string()
    .max(1024)
    .refine((v) => !/\p{Cc}/u.test(v))
    .pipe(z.url()),
});

/** An event the operator (or the user service on an admin's behalf) caused through this API. */
const byOperator = (subjectId: string, at: Date) => ({
  subjectId,
  actor: { kind: 'operator' as const, id: null },
  at,
});

export function registerAdminRoutes(app: FastifyInstance, ctx: IdentityContext): void {
  const api = (li: Parameters<typeof toApiIdentity>[0]) => toApiIdentity(li, ctx.config.publicUrl, true);

  app.post('/admin/identities', async (req, reply) => {
    const body = parseBody(CreateIdentityBodySchema, readJson(req));
    const li = await createIdentity(ctx.db, ctx.clock, body, ctx.passwords.hash);
    return reply.code(201).send(api(li));
  });

  app.get('/admin/identities', async (req, reply) => {
    const identifier = qs(req.query, 'credentials_identifier');
    const pageSize = Math.min(Math.max(Number(qs(req.query, 'page_size') ?? 250) || 250, 1), 1000);
    const after = qs(req.query, 'page_token');
    let q = ctx.db
      .selectFrom('identity_identities')
      .selectAll()
      .orderBy('id')
      .limit(pageSize + 1);
    if (identifier !== undefined) {
      // A login identifier of any credential, or the identity's email address: Kratos lists the
      // address as the identifier of its `code` credential, so an identity without a password (an
      // invitee, a single sign-on member) is found by its address too.
      const wanted = normalizeEmail(identifier);
      q = q.where((eb) =>
        eb.or([
          eb(
            'id',
            'in',
            eb
              .selectFrom('identity_credential_identifiers')
              .select('identity_id')
              .where('identifier', '=', wanted),
          ),
          eb(
            'id',
            'in',
            eb.selectFrom('identity_verifiable_addresses').select('identity_id').where('value', '=', wanted),
          ),
        ]),
      );
    }
    if (after && isUuid(after)) q = q.where('id', '>', after);
    const rows = await q.execute();
    const page = rows.slice(0, pageSize);
    if (rows.length > pageSize) {
      const next = new URL(`${ctx.config.adminUrl}/admin/identities`);
      next.searchParams.set('page_size', String(pageSize));
      next.searchParams.set('page_token', page[page.length - 1]!.id);
      reply.header('link', `<${next.toString()}>; rel="next"`);
    }
    return reply.send((await loadMany(ctx.db, page)).map(api));
  });

  app.get('/admin/identities/:id', async (req, reply) => {
    const li = await loadIdentity(ctx.db, (req.params as { id: string }).id);
    if (!li) throw errors.notFound();
    return reply.send(api(li));
  });

  app.put('/admin/identities/:id', async (req, reply) => {
    const body = parseBody(UpdateBodySchema, readJson(req));
    const li = await updateIdentity(
      ctx.db,
      ctx.clock,
      (req.params as { id: string }).id,
      body as UpdateInput,
      ctx.passwords.hash,
    );
    return reply.send(api(li));
  });

  app.patch('/admin/identities/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    const ops = readJson(req);
    const current = await loadIdentity(ctx.db, id);
    if (!current) throw errors.notFound();
    const patched = applyJsonPatch(currentDocument(current), ops);
    const body = parseBody(UpdateBodySchema, patched);
    const li = await updateIdentity(ctx.db, ctx.clock, id, body as UpdateInput, ctx.passwords.hash);
    return reply.send(api(li));
  });

  app.delete('/admin/identities/:id', async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!isUuid(id)) throw errors.notFound();
    const r = await ctx.db.deleteFrom('identity_identities').where('id', '=', id).executeTakeFirst();
    if (Number(r.numDeletedRows) === 0) throw errors.notFound();
    return reply.code(204).send();
  });

  app.delete('/admin/identities/:id/sessions', async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!(await loadIdentity(ctx.db, id))) throw errors.notFound();
    const now = ctx.clock.now();
    await ctx.db.transaction().execute(async (trx) => {
      await revokeIdentitySessions(trx, id, now);
      await recordSecurityEvent(trx, ctx, {
        ...byOperator(id, now),
        type: 'session.ended',
        details: { scope: 'all' },
      });
    });
    return reply.code(204).send();
  });

  /**
   * Kratos `DELETE /admin/identities/{id}/credentials/{type}`, for the second factors only (`totp`,
   * `lookup_secret`, `webauthn` security keys; as in Kratos, not passkeys): an organisation admin
   * resets a member's 2FA (issue 24). 404 when the identity or that credential does not exist.
   */
  app.delete('/admin/identities/:id/credentials/:type', async (req, reply) => {
    const { id, type } = req.params as { id: string; type: string };
    if (type !== 'totp' && type !== 'lookup_secret' && type !== 'webauthn') throw errors.notFound();
    if (!isUuid(id)) throw errors.notFound();
    const now = ctx.clock.now();
    const deleted = await ctx.db.transaction().execute(async (trx) => {
      const r = await trx
        .deleteFrom('identity_credentials')
        .where('identity_id', '=', id)
        .where('type', '=', type)
        .executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await recordSecurityEvent(trx, ctx, {
        ...byOperator(id, now),
        type: 'two_factor.reset',
        details: { method: type },
      });
      return true;
    });
    if (!deleted) throw errors.notFound();
    return reply.code(204).send();
  });

  /**
   * Not in Kratos: ends every unfinished recovery flow of the identity (its codes and links stop
   * working at once). The user service calls it before it resends or revokes an invitation.
   */
  app.delete(
    '/admin/identities/:id/recovery-flows',
    openApi({ params: IdParamsSchema, responses: { 204: null } }),
    async (req, reply) => {
      const { id } = req.params as { id: string };
      if (!(await loadIdentity(ctx.db, id))) throw errors.notFound();
      await endRecoveryFlows(ctx.db, id, ctx.clock.now());
      return reply.code(204).send();
    },
  );

  /**
   * Not in Kratos: before the user service hands an existing account to an invited person, an account
   * whose address was never proven (someone's self sign-up) loses every credential and session its
   * starter set up, and the address is told (`reclaimUnprovenAccount`). `{reclaimed: false}` when the
   * address was proven (nothing changes).
   */
  app.post(
    '/admin/identities/:id/reclaim',
    openApi({ params: IdParamsSchema, responses: { 200: ReclaimedSchema } }),
    async (req, reply) => {
      const { id } = req.params as { id: string };
      if (!(await loadIdentity(ctx.db, id))) throw errors.notFound();
      const now = ctx.clock.now();
      const reclaimed = await ctx.db
        .transaction()
        .execute((trx) => reclaimUnprovenAccount(trx, ctx, { identityId: id, now, reason: 'invitation' }));
      return reply.send(ReclaimedSchema.parse({ reclaimed }));
    },
  );

  /**
   * Not in Kratos: removes every organisation single sign-on link to one provider record
   * (organisation + issuer). The user service calls it when it removes the provider or changes its
   * issuer, so a link never outlives the provider it was made through.
   */
  app.delete(
    '/admin/oidc/links',
    openApi({ query: OidcLinksQuerySchema, responses: { 200: RemovedLinksSchema } }),
    async (req, reply) => {
      const query = OidcLinksQuerySchema.safeParse(req.query);
      if (!query.success)
        throw errors.badRequest('organisation_id (a UUID) and issuer (a URL) are required.');
      const identityIds = await removeLinks(
        ctx.db,
        query.data.organisation_id,
        query.data.issuer,
        ctx.clock.now(),
      );
      return reply.send(RemovedLinksSchema.parse({ identity_ids: identityIds }));
    },
  );

  /** Not in Kratos: what the one-off repair of SSO links found and did (migration 220), for the report. */
  app.get(
    '/admin/oidc/link-repairs',
    openApi({ responses: { 200: LinkRepairsSchema } }),
    async (_req, reply) => {
      const rows = await listLinkRepairs(ctx.db);
      return reply.send(
        LinkRepairsSchema.parse({
          repairs: rows.map((r) => ({
            identity_id: r.identity_id,
            provider: r.provider,
            subject: r.subject,
            finding: r.finding,
            ...(r.organisation_id ? { organisation_id: r.organisation_id, issuer: r.issuer } : {}),
            repaired_at: r.repaired_at.toISOString(),
          })),
        }),
      );
    },
  );
}
