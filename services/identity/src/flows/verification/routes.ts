import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UiContainer, VerificationFlow } from '@ory/client';
import { renderVerificationCode } from '@acme/mail';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { IdentityError, errors } from '../../errors/identity-error.ts';
import { readFormOrJson } from '../../http/body.ts';
import { cookieMatchesFlow, csrfHash, ensureCsrfToken, verifyCsrf } from '../../http/csrf.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson, withQuery } from '../../http/respond.ts';
import { normalizeEmail } from '../../identities/repo.ts';
import { allowSend } from '../../throttle/repo.ts';
import { MAX_CODE_SUBMISSIONS, codeMatches, hashCode, newCode } from '../../strategies/code/code.ts';
import { messages } from '../../ui/messages.ts';
import {
  anchorNode,
  clearMessages,
  emailCodeNodes,
  enterCodeNodes,
  placeMessages,
  type FieldMessage,
} from '../../ui/nodes.ts';
import { validReturnTo } from '../login/routes.ts';
import { getFlow, insertFlow, isExpired, updateFlow } from '../flow-store.ts';
import { baseFlow } from '../render.ts';

const action = (ctx: Ctx, id: string) => `${ctx.config.publicUrl}/self-service/verification?flow=${id}`;

function render(ctx: Ctx, req: FastifyRequest, flow: FlowRow, csrfToken?: string): VerificationFlow {
  return { ...baseFlow(ctx, req, flow, csrfToken), active: 'code' } as VerificationFlow;
}

async function newVerificationFlow(
  ctx: Ctx,
  p: { returnTo: string | null; requestUrl: string; csrfToken: string; messages?: UiContainer['messages'] },
) {
  return insertFlow(ctx.db, {
    kind: 'verification',
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

/** Email verification with the `code` method: 1080003 when sent, 4070006 for a wrong code, 1080002 on success. */
export function registerVerificationRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/self-service/verification/browser', { config: { browserErrors: true } }, async (req, reply) => {
    const returnTo = validReturnTo(ctx, qs(req.query, 'return_to'));
    const csrfToken = ensureCsrfToken(req, reply, ctx.config);
    const flow = await newVerificationFlow(ctx, {
      returnTo,
      requestUrl: `${ctx.config.publicUrl}${req.url}`,
      csrfToken,
    });
    if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.verification, { flow: flow.id }));
    return reply.send(render(ctx, req, flow, csrfToken));
  });

  app.get('/self-service/verification/flows', async (req, reply) => {
    const flow = await getFlow(ctx.db, 'verification', qs(req.query, 'id'));
    if (!flow) throw errors.flowNotFound();
    if (!cookieMatchesFlow(req, ctx.config, flow.csrf_hash))
      throw errors.csrf('The anti-CSRF cookie does not belong to this flow.');
    if (isExpired(flow, ctx.clock.now())) {
      throw new IdentityError(410, {
        reason:
          'The verification flow has expired. Redirect the user to the verification flow init endpoint to initialize a new verification flow.',
        details: {
          redirect_to: `${ctx.config.publicUrl}/self-service/verification/browser`,
          ...(flow.return_to ? { return_to: flow.return_to } : {}),
        },
      });
    }
    return reply.send(render(ctx, req, flow));
  });

  app.post('/self-service/verification', { config: { browserErrors: true } }, async (req, reply) => {
    const flow = await getFlow(ctx.db, 'verification', qs(req.query, 'flow'));
    if (!flow) throw errors.flowNotFound();
    const now = ctx.clock.now();
    if (isExpired(flow, now))
      return replaceFlow(
        ctx,
        req,
        reply,
        flow,
        'self_service_flow_expired',
        messages.verificationExpired(flow.expires_at, now),
      );
    let body: Record<string, unknown>;
    try {
      body = readFormOrJson(req);
    } catch (e) {
      if (e instanceof IdentityError && e.status === 400 && !e.init.id)
        return answer(ctx, req, reply, flow, [{ pointer: '#/', message: messages.generic(e.message) }], 400);
      throw e;
    }
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
    if (body.method !== 'code') {
      return answer(
        ctx,
        req,
        reply,
        flow,
        [
          {
            pointer: '#/',
            message: messages.generic(
              'Could not find a strategy to verify your account with. Did you fill out the form correctly?',
            ),
          },
        ],
        400,
      );
    }

    // A submitted code needs no CSRF token (the emailed code may be opened in another browser); sending does.
    if (typeof body.email === 'string' && body.code === undefined) {
      verifyCsrf(req, ctx.config, flow.csrf_hash, body.csrf_token);
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
      const address = await ctx.db
        .selectFrom('identity_verifiable_addresses')
        .select(['id'])
        .where('value', '=', email)
        .where('via', '=', 'email')
        .executeTakeFirst();
      const code = newCode();
      const ui: UiContainer = {
        action: action(ctx, flow.id),
        method: 'POST',
        nodes: enterCodeNodes({ withCsrf: true, email, label: messages.verificationCode() }),
        messages: [messages.verificationCodeSent()],
      };
      const internal = {
        submissions: 0,
        code_hash: hashCode(flow.id, code),
        address_id: address?.id ?? null,
      };
      await ctx.db.transaction().execute(async (trx) => {
        await updateFlow(trx, flow.id, { ui, state: 'sent_email', internal }, now);
        if (address) {
          await trx
            .updateTable('identity_verifiable_addresses')
            .set({ status: 'sent', updated_at: now })
            .where('id', '=', address.id)
            .where('verified', '=', false)
            .execute();
          const { sends, windowMs } = ctx.config.codeMailLimit;
          if (await allowSend(trx, email, now, sends, windowMs)) {
            await ctx.mailer.enqueue(
              { to: email, ...renderVerificationCode({ code, appName: ctx.config.appName }) },
              trx,
            );
          }
        }
      });
      if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.verification, { flow: flow.id }));
      return reply.send(render(ctx, req, { ...flow, ui, state: 'sent_email', internal, updated_at: now }));
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
    if (submissions > MAX_CODE_SUBMISSIONS)
      return replaceFlow(ctx, req, reply, flow, 'self_service_flow_replaced', messages.tooManyAttempts());
    const addressId = typeof flow.internal.address_id === 'string' ? flow.internal.address_id : null;
    if (!addressId || !codeMatches(flow.id, body.code, flow.internal.code_hash)) {
      const internal = { ...flow.internal, submissions };
      await updateFlow(ctx.db, flow.id, { internal }, now);
      return answer(
        ctx,
        req,
        reply,
        { ...flow, internal },
        [{ pointer: '#/', message: messages.verificationInvalidCode() }],
        200,
      );
    }
    const returnTo = flow.return_to ?? ctx.config.defaultReturnUrl;
    const ui: UiContainer = {
      action: returnTo,
      method: 'GET',
      nodes: [anchorNode('code', 'continue', returnTo, messages.continue())],
      messages: [messages.verified()],
    };
    const internal = { ...flow.internal, submissions, code_hash: null };
    await ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('identity_verifiable_addresses')
        .set({ verified: true, status: 'completed', verified_at: now, updated_at: now })
        .where('id', '=', addressId)
        .execute();
      await updateFlow(trx, flow.id, { ui, state: 'passed_challenge', internal }, now);
    });
    if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.verification, { flow: flow.id }));
    return reply.send(
      render(ctx, req, { ...flow, ui, state: 'passed_challenge', internal, updated_at: now }),
    );
  });
}

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
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.verification, { flow: flow.id }));
  return reply.code(status).send(render(ctx, req, { ...flow, ui, updated_at: now }));
}

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
  const fresh = await newVerificationFlow(ctx, {
    returnTo: flow.return_to,
    requestUrl: flow.request_url,
    csrfToken,
    messages: [message],
  });
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.verification, { flow: fresh.id }));
  throw new IdentityError(410, {
    id,
    message: id === 'self_service_flow_expired' ? 'self-service flow expired' : 'self-service flow replaced',
    reason:
      id === 'self_service_flow_expired'
        ? 'The verification flow has expired. Use the new flow.'
        : 'The verification flow can not be used any more. Use the new flow.',
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
