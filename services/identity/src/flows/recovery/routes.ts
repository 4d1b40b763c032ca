import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderRecoveryCode } from '@acme/mail';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { errors } from '../../errors/identity-error.ts';
import { readJson } from '../../http/body.ts';
import { setSessionCookie } from '../../http/cookies.ts';
import { ensureCsrfToken } from '../../http/csrf.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson, withQuery } from '../../http/respond.ts';
import { identityEmail, isUuid, loadIdentity, normalizeEmail } from '../../identities/repo.ts';
import { parseDuration } from '../../config.ts';
import { currentSession } from '../../sessions/current.ts';
import { createSession, revokeSession } from '../../sessions/repo.ts';
import { hashCode, newCode } from '../../strategies/code/code.ts';
import {
  codeFlowAction,
  codeFlowUi,
  showCodeFlow,
  startCodeFlow,
  submitCodeFlow,
  type CodeFlowSpec,
} from '../../strategies/code/flow.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { resetAccount } from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import { enterCodeNodes } from '../../ui/nodes.ts';
import { validReturnTo } from '../login/routes.ts';
import { createSettingsFlow } from '../settings/flow.ts';
import { insertFlow, updateFlow } from '../flow-store.ts';

/** Recovery with the `code` method (v1 states: choose_method → sent_email → passed_challenge). */
const recovery: CodeFlowSpec<{ identity_id: string }> = {
  kind: 'recovery',
  csrfOnEverySubmit: true,
  // Admin-made flows already hold their code: a submitted address never sends one.
  isSendRequest: (flow) => !flow.internal.admin,
  noStrategy: 'Could not find a strategy to recover your account with. Did you fill out the form correctly?',
  expired: messages.recoveryExpired,
  codeLabel: messages.recoveryCode,
  codeSent: messages.recoveryCodeSent,
  invalidCode: messages.recoveryInvalidCode,
  findAddress: (db, email) =>
    db
      .selectFrom('identity_recovery_addresses')
      .select('identity_id')
      .where('value', '=', email)
      .where('via', '=', 'email')
      .executeTakeFirst(),
  sentInternal: (owner, email) => ({ identity_id: owner?.identity_id ?? null, address: email }),
  renderMail: renderRecoveryCode,
  targetKey: 'identity_id',
  succeed: (ctx, req, reply, flow, identityId) => recovered(ctx, req, reply, flow, identityId),
};

export function registerRecoveryRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/self-service/recovery/browser', { config: { browserErrors: true } }, async (req, reply) => {
    const returnTo = validReturnTo(ctx, qs(req.query, 'return_to'));
    if (await currentSession(ctx, req)) {
      if (!wantsJson(req)) return redirect(reply, returnTo ?? ctx.config.defaultReturnUrl);
      throw errors.sessionAlreadyAvailable();
    }
    return startCodeFlow(ctx, req, reply, 'recovery', returnTo);
  });

  app.get('/self-service/recovery/flows', async (req, reply) => showCodeFlow(ctx, req, reply, 'recovery'));

  app.post('/self-service/recovery', { config: { browserErrors: true } }, async (req, reply) =>
    submitCodeFlow(ctx, req, reply, recovery),
  );
}

/** Correct code: session (`code_recovery`), address verified (self-service only), settings flow with 1060001, 422 to the settings UI. */
async function recovered(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  identityId: string,
) {
  const now = ctx.clock.now();
  const identity = await loadIdentity(ctx.db, identityId);
  if (!identity || identity.row.state !== 'active')
    throw errors.badRequest('The identity can not be recovered.');
  const previous = await currentSession(ctx, req);
  const { token, row } = await ctx.db.transaction().execute(async (trx) => {
    await updateFlow(
      trx,
      flow.id,
      { state: 'passed_challenge', internal: { ...flow.internal, code_hash: null } },
      now,
    );
    if (!flow.internal.admin && typeof flow.internal.address === 'string') {
      await trx
        .updateTable('identity_verifiable_addresses')
        .set({ verified: true, status: 'completed', verified_at: now, updated_at: now })
        .where('identity_id', '=', identityId)
        .where('value', '=', flow.internal.address)
        .where('verified', '=', false)
        .execute();
    }
    const email = normalizeEmail(identityEmail(identity));
    await resetAccount(trx, normalizeIdentifier(email));
    if (previous) await revokeSession(trx, previous.row.id, now);
    return createSession(trx, {
      identityId,
      methods: [{ method: 'code_recovery', aal: 'aal1', completed_at: now.toISOString() }],
      now,
      lifespanMs: ctx.config.sessionLifespanMs,
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? '',
    });
  });
  setSessionCookie(reply, ctx.config, token, row.expires_at);
  const csrfToken = ensureCsrfToken(req, reply, ctx.config);
  const fresh = (await loadIdentity(ctx.db, identityId))!;
  const settings = await createSettingsFlow(ctx, {
    identity: fresh,
    returnTo: flow.return_to,
    requestUrl: flow.request_url,
    csrfToken,
    messages: [messages.recovered(ctx.config.privilegedSessionMaxAgeMs / 60_000)],
  });
  const to = withQuery(ctx.config.ui.settings, { flow: settings.id });
  if (!wantsJson(req)) return redirect(reply, to);
  throw errors.browserLocationChange(to);
}

/** `POST /admin/recovery/code {identity_id, expires_in?}`: an invitation/recovery code without CSRF (admin API). */
export function registerAdminRecoveryRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.post('/admin/recovery/code', async (req, reply) => {
    const body = readJson(req) as { identity_id?: unknown; expires_in?: unknown };
    if (typeof body !== 'object' || body === null || typeof body.identity_id !== 'string')
      throw errors.badRequest('identity_id is required.');
    if (!isUuid(body.identity_id) || !(await loadIdentity(ctx.db, body.identity_id)))
      throw errors.notFound('The identity could not be found.');
    let lifespan = ctx.config.flowLifespanMs;
    if (body.expires_in !== undefined) {
      try {
        lifespan = parseDuration(String(body.expires_in));
      } catch {
        throw errors.badRequest('expires_in must be a duration like "1h" or "30m".');
      }
      if (lifespan <= 0 || lifespan > 30 * 24 * 3600_000)
        throw errors.badRequest('expires_in must be between 1s and 720h.');
    }
    const code = newCode();
    const now = ctx.clock.now();
    const flow = await insertFlow(ctx.db, {
      kind: 'recovery',
      type: 'browser',
      state: 'sent_email',
      csrfHash: null,
      requestUrl: `${ctx.config.adminUrl}${req.url}`,
      returnTo: null,
      ui: (id) => ({
        action: codeFlowAction(ctx, 'recovery', id),
        method: 'POST',
        nodes: enterCodeNodes({ withCsrf: false, label: messages.recoveryCode() }),
      }),
      internal: { submissions: 0, identity_id: body.identity_id, admin: true },
      now,
      lifespanMs: lifespan,
    });
    await updateFlow(
      ctx.db,
      flow.id,
      { internal: { ...flow.internal, code_hash: hashCode(flow.id, code) } },
      now,
    );
    return reply.code(201).send({
      recovery_link: codeFlowUi(ctx, 'recovery', flow.id),
      recovery_code: code,
      expires_at: flow.expires_at.toISOString(),
    });
  });
}
