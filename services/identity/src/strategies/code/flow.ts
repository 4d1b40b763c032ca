import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UiContainer, UiText } from '@ory/client';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { IdentityError, errors } from '../../errors/identity-error.ts';
import { getFlow, insertFlow, isExpired, updateFlow } from '../../flows/flow-store.ts';
import { baseFlow } from '../../flows/render.ts';
import { readFormOrJson } from '../../http/body.ts';
import { cookieMatchesFlow, csrfHash, ensureCsrfToken, verifyCsrf } from '../../http/csrf.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson, withQuery } from '../../http/respond.ts';
import { normalizeEmail, type Db } from '../../identities/repo.ts';
import { allowSend } from '../../throttle/repo.ts';
import { messages } from '../../ui/messages.ts';
import {
  clearMessages,
  emailCodeNodes,
  enterCodeNodes,
  placeMessages,
  type FieldMessage,
} from '../../ui/nodes.ts';
import { MAX_CODE_SUBMISSIONS, codeMatches, hashCode, newCode } from './code.ts';

/**
 * The `code` method shared by recovery and verification (Kratos v1 states:
 * choose_method → sent_email → passed_challenge): flow creation, fetching, expiry and replacement,
 * CSRF, sending a code by mail, counting code submissions and answering. What differs is a `CodeFlowSpec`.
 */
export type CodeFlowKind = 'recovery' | 'verification';

type Message = ReturnType<typeof messages.generic>;
type ReplacedBecause = 'self_service_flow_expired' | 'self_service_flow_replaced';

export interface CodeFlowSpec<Target> {
  kind: CodeFlowKind;
  /** Recovery checks CSRF on every submit; verification only when sending (a code may be opened elsewhere). */
  csrfOnEverySubmit: boolean;
  /** Whether this submission asks for a code to be (re)sent rather than checking one. */
  isSendRequest(flow: FlowRow, body: Record<string, unknown>): boolean;
  /** Reason of the 4000001 message when `method` is not `code`. */
  noStrategy: string;
  expired(expiredAt: Date, now: Date): Message;
  codeLabel(): UiText;
  codeSent(): Message;
  invalidCode(): Message;
  /** The owner of an address, if known (unknown addresses get the same answer, but no mail). */
  findAddress(db: Db, email: string): Promise<Target | undefined>;
  /** What the flow remembers besides the code hash after sending. */
  sentInternal(target: Target | undefined, email: string): Record<string, unknown>;
  /** Runs in the sending transaction before the mail, for a known address. */
  beforeMail?(trx: Db, target: Target, now: Date): Promise<void>;
  renderMail(p: { code: string; appName: string }): { subject: string; text: string; html: string };
  /** The `internal` key that a correct code acts on. */
  targetKey: string;
  /** A correct code for `targetId`; `submissions` counts this one, `now` is the request's time. */
  succeed(
    ctx: Ctx,
    req: FastifyRequest,
    reply: FastifyReply,
    flow: FlowRow,
    targetId: string,
    submissions: number,
    now: Date,
  ): Promise<unknown>;
}

export const codeFlowAction = (ctx: Ctx, kind: CodeFlowKind, id: string) =>
  `${ctx.config.publicUrl}/self-service/${kind}?flow=${id}`;

/** The flow's page in the app. */
export const codeFlowUi = (ctx: Ctx, kind: CodeFlowKind, id: string) =>
  withQuery(ctx.config.ui[kind], { flow: id });

export function renderCodeFlow(ctx: Ctx, req: FastifyRequest, flow: FlowRow, csrfToken?: string) {
  return { ...baseFlow(ctx, req, flow, csrfToken), active: 'code' };
}

export async function newCodeFlow(
  ctx: Ctx,
  kind: CodeFlowKind,
  p: { returnTo: string | null; requestUrl: string; csrfToken: string; messages?: UiContainer['messages'] },
) {
  return insertFlow(ctx.db, {
    kind,
    type: 'browser',
    state: 'choose_method',
    csrfHash: csrfHash(p.csrfToken),
    requestUrl: p.requestUrl,
    returnTo: p.returnTo,
    ui: (id) => ({
      action: codeFlowAction(ctx, kind, id),
      method: 'POST',
      nodes: emailCodeNodes(true),
      ...(p.messages?.length ? { messages: p.messages } : {}),
    }),
    internal: { submissions: 0 },
    now: ctx.clock.now(),
    lifespanMs: ctx.config.flowLifespanMs,
  });
}

/** `GET /self-service/{kind}/browser` after any flow-specific checks: a new flow, 303 to the UI or JSON. */
export async function startCodeFlow(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  kind: CodeFlowKind,
  returnTo: string | null,
) {
  const csrfToken = ensureCsrfToken(req, reply, ctx.config);
  const flow = await newCodeFlow(ctx, kind, {
    returnTo,
    requestUrl: `${ctx.config.publicUrl}${req.url}`,
    csrfToken,
  });
  if (!wantsJson(req)) return redirect(reply, codeFlowUi(ctx, kind, flow.id));
  return reply.send(renderCodeFlow(ctx, req, flow, csrfToken));
}

/** `GET /self-service/{kind}/flows?id=`. */
export async function showCodeFlow(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, kind: CodeFlowKind) {
  const flow = await getFlow(ctx.db, kind, qs(req.query, 'id'));
  if (!flow) throw errors.flowNotFound();
  if (!cookieMatchesFlow(req, ctx.config, flow.csrf_hash))
    throw errors.csrf('The anti-CSRF cookie does not belong to this flow.');
  if (isExpired(flow, ctx.clock.now())) {
    throw new IdentityError(410, {
      reason: `The ${kind} flow has expired. Redirect the user to the ${kind} flow init endpoint to initialize a new ${kind} flow.`,
      details: {
        redirect_to: `${ctx.config.publicUrl}/self-service/${kind}/browser`,
        ...(flow.return_to ? { return_to: flow.return_to } : {}),
      },
    });
  }
  return reply.send(renderCodeFlow(ctx, req, flow));
}

/** `POST /self-service/{kind}?flow=`: send a code to an address, or check a submitted code. */
export async function submitCodeFlow<Target>(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  spec: CodeFlowSpec<Target>,
) {
  const { kind } = spec;
  const flow = await getFlow(ctx.db, kind, qs(req.query, 'flow'));
  if (!flow) throw errors.flowNotFound();
  const now = ctx.clock.now();
  const replaceWith = (id: ReplacedBecause, message: Message) =>
    replaceFlow(ctx, req, reply, kind, flow, id, message);
  const badInput = (pointer: string, message: Message) =>
    answer(ctx, req, reply, kind, flow, [{ pointer, message }], 400);
  if (isExpired(flow, now))
    return replaceWith('self_service_flow_expired', spec.expired(flow.expires_at, now));
  let body: Record<string, unknown>;
  try {
    body = readFormOrJson(req);
  } catch (e) {
    if (e instanceof IdentityError && e.status === 400 && !e.init.id)
      return badInput('#/', messages.generic(e.message));
    throw e;
  }
  if (spec.csrfOnEverySubmit) verifyCsrf(req, ctx.config, flow.csrf_hash, body.csrf_token);
  if (flow.state === 'passed_challenge') {
    return replaceWith(
      'self_service_flow_replaced',
      messages.generic('The request was already completed successfully and can not be retried.'),
    );
  }
  if (body.method !== 'code') return badInput('#/', messages.generic(spec.noStrategy));

  // Sending (or resending) a code. Never reveal whether the address is known.
  if (typeof body.email === 'string' && spec.isSendRequest(flow, body)) {
    if (!spec.csrfOnEverySubmit) verifyCsrf(req, ctx.config, flow.csrf_hash, body.csrf_token);
    return sendCode(ctx, req, reply, spec, flow, body.email, now);
  }

  if (flow.state !== 'sent_email') return badInput('#/email', messages.required('email'));
  const submissions = Number(flow.internal.submissions ?? 0) + 1;
  if (submissions > MAX_CODE_SUBMISSIONS) {
    return replaceWith('self_service_flow_replaced', messages.tooManyAttempts());
  }
  const target = flow.internal[spec.targetKey];
  const targetId = typeof target === 'string' ? target : null;
  if (!targetId || !codeMatches(flow.id, body.code, flow.internal.code_hash)) {
    const internal = { ...flow.internal, submissions };
    await updateFlow(ctx.db, flow.id, { internal }, now);
    return answer(
      ctx,
      req,
      reply,
      kind,
      { ...flow, internal },
      [{ pointer: '#/', message: spec.invalidCode() }],
      200,
    );
  }
  return spec.succeed(ctx, req, reply, flow, targetId, submissions, now);
}

async function sendCode<Target>(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  spec: CodeFlowSpec<Target>,
  flow: FlowRow,
  rawEmail: string,
  now: Date,
) {
  const { kind } = spec;
  const email = normalizeEmail(rawEmail);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
    return answer(
      ctx,
      req,
      reply,
      kind,
      flow,
      [{ pointer: '#/email', message: messages.generic(`"${rawEmail.slice(0, 100)}" is not valid "email"`) }],
      400,
    );
  }
  const target = await spec.findAddress(ctx.db, email);
  const code = newCode();
  const ui: UiContainer = {
    action: codeFlowAction(ctx, kind, flow.id),
    method: 'POST',
    nodes: enterCodeNodes({ withCsrf: flow.csrf_hash !== null, email, label: spec.codeLabel() }),
    messages: [spec.codeSent()],
  };
  const internal = {
    submissions: 0,
    code_hash: hashCode(flow.id, code),
    ...spec.sentInternal(target, email),
  };
  await ctx.db.transaction().execute(async (trx) => {
    await updateFlow(trx, flow.id, { ui, state: 'sent_email', internal }, now);
    if (target) {
      await spec.beforeMail?.(trx, target, now);
      const { sends, windowMs } = ctx.config.codeMailLimit;
      if (await allowSend(trx, email, now, sends, windowMs)) {
        await ctx.mailer.enqueue(
          { to: email, ...spec.renderMail({ code, appName: ctx.config.appName }) },
          trx,
        );
      }
    }
  });
  if (!wantsJson(req)) return redirect(reply, codeFlowUi(ctx, kind, flow.id));
  return reply.send(
    renderCodeFlow(ctx, req, { ...flow, ui, state: 'sent_email', internal, updated_at: now }),
  );
}

/** 200 (wrong code) or 400 (bad input) with the flow and its messages. */
async function answer(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  kind: CodeFlowKind,
  flow: FlowRow,
  list: FieldMessage[],
  status: 200 | 400,
) {
  const now = ctx.clock.now();
  const ui = placeMessages(clearMessages(flow.ui as UiContainer), list);
  await updateFlow(ctx.db, flow.id, { ui }, now);
  if (!wantsJson(req)) return redirect(reply, codeFlowUi(ctx, kind, flow.id));
  return reply.code(status).send(renderCodeFlow(ctx, req, { ...flow, ui, updated_at: now }));
}

/** A new flow replaces this one (expired, finished, or too many codes): JSON 410 with `use_flow_id`. */
async function replaceFlow(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  kind: CodeFlowKind,
  flow: FlowRow,
  id: ReplacedBecause,
  message: Message,
) {
  const now = ctx.clock.now();
  const csrfToken = ensureCsrfToken(req, reply, ctx.config);
  const fresh = await newCodeFlow(ctx, kind, {
    returnTo: flow.return_to,
    requestUrl: flow.request_url,
    csrfToken,
    messages: [message],
  });
  if (!wantsJson(req)) return redirect(reply, codeFlowUi(ctx, kind, fresh.id));
  const expired = id === 'self_service_flow_expired';
  throw new IdentityError(410, {
    id,
    message: expired ? 'self-service flow expired' : 'self-service flow replaced',
    reason: expired
      ? `The ${kind} flow has expired. Use the new flow.`
      : `The ${kind} flow can not be used any more. Use the new flow.`,
    extra: {
      use_flow_id: fresh.id,
      ...(expired
        ? {
            expired_at: flow.expires_at.toISOString(),
            since: (now.getTime() - flow.expires_at.getTime()) * 1e6,
          }
        : {}),
    },
  });
}
