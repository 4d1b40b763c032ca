import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RecoveryFlow, UiContainer } from '@ory/client';
import { renderRecoveryCode } from '@acme/mail';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { IdentityError, errors } from '../../errors/identity-error.ts';
import { readFormOrJson, readJson } from '../../http/body.ts';
import { setSessionCookie } from '../../http/cookies.ts';
import { cookieMatchesFlow, csrfHash, ensureCsrfToken, verifyCsrf } from '../../http/csrf.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson, withQuery } from '../../http/respond.ts';
import { isUuid, loadIdentity, normalizeEmail } from '../../identities/repo.ts';
import { parseDuration } from '../../config.ts';
import { currentSession } from '../../sessions/current.ts';
import { createSession, revokeSession } from '../../sessions/repo.ts';
import { MAX_CODE_SUBMISSIONS, codeMatches, hashCode, newCode } from '../../strategies/code/code.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { allowSend, resetAccount } from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import {
  clearMessages,
  emailCodeNodes,
  enterCodeNodes,
  placeMessages,
  type FieldMessage,
} from '../../ui/nodes.ts';
import { validReturnTo } from '../login/routes.ts';
import { createSettingsFlow } from '../settings/flow.ts';
import { getFlow, insertFlow, isExpired, updateFlow } from '../flow-store.ts';
import { baseFlow } from '../render.ts';

const action = (ctx: Ctx, id: string) => `${ctx.config.publicUrl}/self-service/recovery?flow=${id}`;

function render(ctx: Ctx, req: FastifyRequest, flow: FlowRow, csrfToken?: string): RecoveryFlow {
  return { ...baseFlow(ctx, req, flow, csrfToken), active: 'code' } as RecoveryFlow;
}

async function newRecoveryFlow(
  ctx: Ctx,
  p: { returnTo: string | null; requestUrl: string; csrfToken: string; messages?: UiContainer['messages'] },
) {
  return insertFlow(ctx.db, {
    kind: 'recovery',
    type: 'browser',
    state: 'choose_method',
    csrfHash: csrfHash(p.csrfToken),
    requestUrl: p.requestUrl,
    returnTo: p.returnTo,
    ui: (id) => ({
      action: action(ctx, id),
      method: 'POST',
      nodes: emailCodeNodes(true),
      ...(p.messages?.length ? { messages: p.messages } : {}),
    }),
    internal: { submissions: 0 },
    now: ctx.clock.now(),
    lifespanMs: ctx.config.flowLifespanMs,
  });
}

/** Recovery with the `code` method (v1 states: choose_method → sent_email → passed_challenge). */
export function registerRecoveryRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/self-service/recovery/browser', { config: { browserErrors: true } }, async (req, reply) => {
    const returnTo = validReturnTo(ctx, qs(req.query, 'return_to'));
    if (await currentSession(ctx, req)) {
      if (!wantsJson(req)) return redirect(reply, returnTo ?? ctx.config.defaultReturnUrl);
      throw errors.sessionAlreadyAvailable();
    }
    const csrfToken = ensureCsrfToken(req, reply, ctx.config);
    const flow = await newRecoveryFlow(ctx, {
      returnTo,
      requestUrl: `${ctx.config.publicUrl}${req.url}`,
      csrfToken,
    });
    if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.recovery, { flow: flow.id }));
    return reply.send(render(ctx, req, flow, csrfToken));
  });

  app.get('/self-service/recovery/flows', async (req, reply) => {
    const flow = await getFlow(ctx.db, 'recovery', qs(req.query, 'id'));
    if (!flow) throw errors.flowNotFound();
    if (!cookieMatchesFlow(req, ctx.config, flow.csrf_hash))
      throw errors.csrf('The anti-CSRF cookie does not belong to this flow.');
    if (isExpired(flow, ctx.clock.now())) {
      throw new IdentityError(410, {
        reason:
          'The recovery flow has expired. Redirect the user to the recovery flow init endpoint to initialize a new recovery flow.',
        details: {
          redirect_to: `${ctx.config.publicUrl}/self-service/recovery/browser`,
          ...(flow.return_to ? { return_to: flow.return_to } : {}),
        },
      });
    }
    return reply.send(render(ctx, req, flow));
  });

  app.post('/self-service/recovery', { config: { browserErrors: true } }, async (req, reply) => {
    const flow = await getFlow(ctx.db, 'recovery', qs(req.query, 'flow'));
    if (!flow) throw errors.flowNotFound();
    const now = ctx.clock.now();
    if (isExpired(flow, now)) {
      return replaceFlow(
        ctx,
        req,
        reply,
        flow,
        'self_service_flow_expired',
        messages.recoveryExpired(flow.expires_at, now),
      );
    }
    let body: Record<string, unknown>;
    try {
      body = readFormOrJson(req);
    } catch (e) {
      if (e instanceof IdentityError && e.status === 400 && !e.init.id)
        return answer(ctx, req, reply, flow, [{ pointer: '#/', message: messages.generic(e.message) }], 400);
      throw e;
    }
    verifyCsrf(req, ctx.config, flow.csrf_hash, body.csrf_token);
    if (flow.state === 'passed_challenge') {
      return replaceFlow(
        ctx,
        req,
        reply,
        flow,
        'self_service_flow_replaced',
        messages.generic('The request was already completed successfully and can not be retried.'),
      );
    }
    if (body.method !== 'code')
      return answer(
        ctx,
        req,
        reply,
        flow,
        [
          {
            pointer: '#/',
            message: messages.generic(
              'Could not find a strategy to recover your account with. Did you fill out the form correctly?',
            ),
          },
        ],
        400,
      );

    // Sending (or resending) a code. Never reveal whether the address is known.
    if (typeof body.email === 'string' && !flow.internal.admin) {
      const email = normalizeEmail(body.email);
      if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
        return answer(
          ctx,
          req,
          reply,
          flow,
          [
            {
              pointer: '#/email',
              message: messages.generic(`"${body.email.slice(0, 100)}" is not valid "email"`),
            },
          ],
          400,
        );
      }
      const owner = await ctx.db
        .selectFrom('identity_recovery_addresses')
        .select('identity_id')
        .where('value', '=', email)
        .where('via', '=', 'email')
        .executeTakeFirst();
      const code = newCode();
      const ui: UiContainer = {
        action: action(ctx, flow.id),
        method: 'POST',
        nodes: enterCodeNodes({ withCsrf: flow.csrf_hash !== null, email, label: messages.recoveryCode() }),
        messages: [messages.recoveryCodeSent()],
      };
      const internal = {
        submissions: 0,
        code_hash: hashCode(flow.id, code),
        identity_id: owner?.identity_id ?? null,
        address: email,
      };
      await ctx.db.transaction().execute(async (trx) => {
        await updateFlow(trx, flow.id, { ui, state: 'sent_email', internal }, now);
        const { sends, windowMs } = ctx.config.codeMailLimit;
        if (owner && (await allowSend(trx, email, now, sends, windowMs))) {
          await ctx.mailer.enqueue(
            { to: email, ...renderRecoveryCode({ code, appName: ctx.config.appName }) },
            trx,
          );
        }
      });
      const updated: FlowRow = { ...flow, ui, state: 'sent_email', internal, updated_at: now };
      if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.recovery, { flow: flow.id }));
      return reply.send(render(ctx, req, updated));
    }

    if (flow.state !== 'sent_email')
      return answer(
        ctx,
        req,
        reply,
        flow,
        [{ pointer: '#/email', message: messages.required('email') }],
        400,
      );
    const submissions = Number(flow.internal.submissions ?? 0) + 1;
    if (submissions > MAX_CODE_SUBMISSIONS) {
      return replaceFlow(ctx, req, reply, flow, 'self_service_flow_replaced', messages.tooManyAttempts());
    }
    const identityId = typeof flow.internal.identity_id === 'string' ? flow.internal.identity_id : null;
    if (!identityId || !codeMatches(flow.id, body.code, flow.internal.code_hash)) {
      const internal = { ...flow.internal, submissions };
      await updateFlow(ctx.db, flow.id, { internal }, now);
      return answer(
        ctx,
        req,
        reply,
        { ...flow, internal },
        [{ pointer: '#/', message: messages.recoveryInvalidCode() }],
        200,
      );
    }
    return recovered(ctx, req, reply, flow, identityId);
  });
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
    const email = normalizeEmail(String((identity.row.traits as { email?: unknown }).email ?? ''));
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

/** 200 (wrong code) or 400 (bad input) with the flow and its messages. */
async function answer(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  list: FieldMessage[],
  status: 200 | 400,
) {
  const now = ctx.clock.now();
  const ui = placeMessages(clearMessages(flow.ui as UiContainer), list);
  await updateFlow(ctx.db, flow.id, { ui }, now);
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.recovery, { flow: flow.id }));
  return reply.code(status).send(render(ctx, req, { ...flow, ui, updated_at: now }));
}

/** A new flow replaces this one (expired, finished, or too many codes): JSON 410 with `use_flow_id`. */
async function replaceFlow(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  id: string,
  message: ReturnType<typeof messages.generic>,
) {
  const now = ctx.clock.now();
  const csrfToken = ensureCsrfToken(req, reply, ctx.config);
  const fresh = await newRecoveryFlow(ctx, {
    returnTo: flow.return_to,
    requestUrl: flow.request_url,
    csrfToken,
    messages: [message],
  });
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.recovery, { flow: fresh.id }));
  throw new IdentityError(410, {
    id,
    message: id === 'self_service_flow_expired' ? 'self-service flow expired' : 'self-service flow replaced',
    reason:
      id === 'self_service_flow_expired'
        ? 'The recovery flow has expired. Use the new flow.'
        : 'The recovery flow can not be used any more. Use the new flow.',
    extra: {
      use_flow_id: fresh.id,
      ...(id === 'self_service_flow_expired'
        ? {
            expired_at: flow.expires_at.toISOString(),
            since: (now.getTime() - flow.expires_at.getTime()) * 1e6,
          }
        : {}),
    },
  });
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
        action: action(ctx, id),
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
      recovery_link: withQuery(ctx.config.ui.recovery, { flow: flow.id }),
      recovery_code: code,
      expires_at: flow.expires_at.toISOString(),
    });
  });
}
