import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UiContainer } from '@ory/client';
import type { Ctx } from '../../context.ts';
import type { AuthMethod, FlowRow } from '../../db/schema.ts';
import { IdentityError, errors } from '../../errors/identity-error.ts';
import { readFormOrJson } from '../../http/body.ts';
import { setSessionCookie } from '../../http/cookies.ts';
import { cookieMatchesFlow, ensureCsrfToken, verifyCsrf } from '../../http/csrf.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson, withQuery } from '../../http/respond.ts';
import { checkReturnTo } from '../../http/return-to.ts';
import { METHOD_AAL } from '../../sessions/aal.ts';
import { currentSession, sessionIdentifier } from '../../sessions/current.ts';
import { createSession, revokeSession, toApiSession, type ActiveSession } from '../../sessions/repo.ts';
import { loadIdentity } from '../../identities/repo.ts';
import { submitPassword } from '../../strategies/password/login.ts';
import { submitTotpLogin } from '../../strategies/totp/login.ts';
import { finishOidcCallback, OIDC_CALLBACK_PATH, startOidcLogin } from '../../strategies/oidc/oidc-login.ts';
import { aal2LoginUrl, hasSecondFactor } from '../../sessions/policy.ts';
import { messages } from '../../ui/messages.ts';
import {
  clearMessages,
  placeMessages,
  setNodeValue,
  totpLoginNodes,
  type FieldMessage,
} from '../../ui/nodes.ts';
import { getFlow, isExpired, updateFlow } from '../flow-store.ts';
import { createLoginFlow, renderLoginFlow } from './flow.ts';

export function validReturnTo(ctx: Ctx, raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const ok = checkReturnTo(raw, [...ctx.config.allowedReturnUrls, `${ctx.config.publicUrl}/self-service/`]);
  if (!ok) throw errors.returnToForbidden(raw);
  return ok;
}

async function acceptOAuth2Login(
  ctx: Ctx,
  challenge: string,
  session: { id: string; identity_id: string; authentication_methods: AuthMethod[] },
) {
  return ctx.hydra.acceptLoginRequest(challenge, {
    subject: session.identity_id,
    identity_provider_session_id: session.id,
    remember: true,
    remember_for: Math.floor(ctx.config.sessionLifespanMs / 1000),
    amr: [...new Set(session.authentication_methods.map((m) => m.method))],
  });
}

const sessionSatisfies = (s: ActiveSession, refresh: boolean, aal: string) =>
  !refresh && !(aal === 'aal2' && s.row.aal !== 'aal2');

export function registerLoginRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/self-service/login/browser', { config: { browserErrors: true } }, async (req, reply) => {
    const aal = qs(req.query, 'aal') || 'aal1';
    if (aal !== 'aal1' && aal !== 'aal2') {
      throw errors.badRequest(
        `Unable to parse AuthenticationMethod Assurance Level (AAL): expected one of [aal1, aal2] but got ${aal.slice(0, 20)}`,
      );
    }
    let refresh = qs(req.query, 'refresh') === 'true';
    const returnTo = validReturnTo(ctx, qs(req.query, 'return_to'));
    const challenge = qs(req.query, 'login_challenge');
    if (challenge !== undefined && challenge === '')
      throw errors.badRequest('the login_challenge parameter is present but empty');
    const session = await currentSession(ctx, req);

    let loginRequest: unknown;
    if (challenge) {
      const lr = await ctx.hydra.getLoginRequest(challenge);
      loginRequest = lr;
      if (lr.skip && session && session.row.identity_id === lr.subject) {
        const { redirect_to } = await acceptOAuth2Login(ctx, challenge, session.row);
        if (!wantsJson(req)) return redirect(reply, redirect_to);
        throw errors.sessionAlreadyAvailable();
      }
      if (!lr.skip) refresh = true; // Kratos forces a refresh when Hydra cannot skip (kratos #3670)
    }
    if (aal === 'aal2' && !session) throw errors.aal1Required();
    if (session && sessionSatisfies(session, refresh, aal)) {
      if (!wantsJson(req)) return redirect(reply, returnTo ?? ctx.config.defaultReturnUrl);
      throw errors.sessionAlreadyAvailable();
    }
    if (aal === 'aal2' && session && !hasSecondFactor(session.identity)) {
      throw errors.badRequest('No second factor is set up for this identity, so aal2 can not be requested.');
    }
    const csrfToken = ensureCsrfToken(req, reply, ctx.config);
    const flow = await createLoginFlow(ctx, {
      aal2Nodes: totpLoginNodes(),
      refresh,
      requestedAal: aal,
      returnTo,
      loginChallenge: challenge ?? null,
      identifier: session && refresh ? sessionIdentifier(session) : '',
      hiddenIdentifier: !!session && refresh,
      reauthMessage: !!session && refresh,
      requestUrl: `${ctx.config.publicUrl}${req.url}`,
      csrfToken,
    });
    if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.login, { flow: flow.id }));
    return reply
      .code(200)
      .send(renderLoginFlow(ctx, req, flow, { csrfToken, oauth2LoginRequest: loginRequest }));
  });

  app.get('/self-service/login/flows', async (req, reply) => {
    const flow = await getFlow(ctx.db, 'login', qs(req.query, 'id'));
    if (!flow) throw errors.flowNotFound();
    if (!cookieMatchesFlow(req, ctx.config, flow.csrf_hash)) {
      throw errors.csrf('The anti-CSRF cookie was not found or does not belong to this flow.');
    }
    if (isExpired(flow, ctx.clock.now())) {
      throw new IdentityError(410, {
        id: 'self_service_flow_expired',
        reason:
          'The login flow has expired. Redirect the user to the login flow init endpoint to initialize a new login flow.',
        details: {
          redirect_to: `${ctx.config.publicUrl}/self-service/login/browser`,
          ...(flow.return_to ? { return_to: flow.return_to } : {}),
        },
      });
    }
    const oauth2LoginRequest = flow.oauth2_login_challenge
      ? await ctx.hydra.getLoginRequest(flow.oauth2_login_challenge).catch(() => undefined)
      : undefined;
    return reply.send(renderLoginFlow(ctx, req, flow, { oauth2LoginRequest }));
  });

  app.post('/self-service/login', { config: { browserErrors: true } }, async (req, reply) => {
    const flow = await getFlow(ctx.db, 'login', qs(req.query, 'flow'));
    if (!flow) throw errors.flowNotFound();
    const now = ctx.clock.now();
    if (isExpired(flow, now)) return expiredFlow(ctx, req, reply, flow);

    const session = await currentSession(ctx, req);
    if (session && sessionSatisfies(session, flow.refresh, flow.requested_aal)) {
      if (!wantsJson(req)) return redirect(reply, flow.return_to ?? ctx.config.defaultReturnUrl);
      throw errors.sessionAlreadyAvailable();
    }

    let body: Record<string, unknown>;
    try {
      body = readFormOrJson(req);
    } catch (e) {
      if (e instanceof IdentityError && e.status === 400 && !e.init.id) {
        return flowFailure(ctx, req, reply, flow, [{ pointer: '#/', message: messages.generic(e.message) }]);
      }
      throw e;
    }
    verifyCsrf(req, ctx.config, flow.csrf_hash, body.csrf_token);

    if (body.method === 'password' && flow.requested_aal === 'aal1') {
      const outcome = await submitPassword(ctx, req, body);
      if (!outcome.ok) return flowFailure(ctx, req, reply, flow, outcome.messages, outcome.identifier);
      return completeLogin(ctx, req, reply, flow, outcome.identityId, 'password', session);
    }
    if (body.method === 'totp' && flow.requested_aal === 'aal2') {
      const outcome = await submitTotpLogin(ctx, flow, session, body);
      if (!outcome.ok) return flowFailure(ctx, req, reply, flow, outcome.messages);
      return completeLogin(ctx, req, reply, flow, outcome.identityId, 'totp', session);
    }
    if (body.method === 'oidc' && flow.requested_aal === 'aal1') {
      // Browsers go to the organisation's provider (303); JSON clients get 422 with redirect_browser_to.
      const outcome = await startOidcLogin(ctx, flow, body);
      if (!outcome.ok) return flowFailure(ctx, req, reply, flow, outcome.messages);
      if (!wantsJson(req)) return redirect(reply, outcome.redirectTo);
      throw errors.browserLocationChange(outcome.redirectTo);
    }
    return flowFailure(ctx, req, reply, flow, [{ pointer: '#/', message: messages.noLoginStrategy() }]);
  });

  // Kratos answers a POST callback (response_mode=form_post) by redirecting it to the GET.
  app.post(OIDC_CALLBACK_PATH, { config: { browserErrors: true } }, async (req, reply) => {
    const { provider } = req.params as { provider: string };
    let body: Record<string, unknown> = {};
    try {
      body = readFormOrJson(req);
    } catch {
      // an empty or malformed body carries nothing to forward
    }
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(body)) if (typeof v === 'string') query.set(k, v);
    const qsText = query.toString();
    return redirect(
      reply,
      `${ctx.config.publicUrl}/self-service/methods/oidc/callback/${encodeURIComponent(provider)}${qsText ? `?${qsText}` : ''}`,
    );
  });

  app.get(OIDC_CALLBACK_PATH, { config: { browserErrors: true } }, async (req, reply) => {
    const { provider } = req.params as { provider: string };
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.query as Record<string, unknown>)) {
      if (typeof v === 'string') query[k] = v;
    }
    const rawQuery = req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
    const outcome = await finishOidcCallback(ctx, provider.slice(0, 100), query, rawQuery, async (flowId) => {
      const flow = await getFlow(ctx.db, 'login', flowId);
      if (!flow) return { type: 'no_flow', reason: 'The login flow of this sign-in no longer exists.' };
      // The answer must come back to the browser that started the sign-in (no login CSRF).
      if (!cookieMatchesFlow(req, ctx.config, flow.csrf_hash)) {
        return {
          type: 'no_flow',
          reason: 'This sign-in was started in another browser. Please start again.',
        };
      }
      return undefined;
    });
    if (outcome.type === 'no_flow') throw errors.badRequest(outcome.reason);
    const flow = await getFlow(ctx.db, 'login', outcome.flowId);
    if (!flow) throw errors.flowNotFound();
    if (outcome.type === 'flow_error') return flowFailure(ctx, req, reply, flow, outcome.messages);
    if (isExpired(flow, ctx.clock.now())) return expiredFlow(ctx, req, reply, flow);
    const session = await currentSession(ctx, req);
    return completeLogin(ctx, req, reply, flow, outcome.identityId, 'oidc', session, outcome.provider);
  });
}

/** 400 with the flow (messages placed Kratos-style), persisted so `flows?id=` shows them too. */
async function flowFailure(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  list: FieldMessage[],
  identifier?: string,
) {
  let ui = clearMessages(flow.ui as UiContainer);
  if (identifier !== undefined && !flow.refresh)
    ui = setNodeValue(ui, 'identifier', identifier.slice(0, 320));
  ui = placeMessages(ui, list);
  const now = ctx.clock.now();
  await updateFlow(ctx.db, flow.id, { ui }, now);
  const updated: FlowRow = { ...flow, ui, updated_at: now };
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.login, { flow: flow.id }));
  return reply.code(400).send(renderLoginFlow(ctx, req, updated));
}

/** A submit to an expired flow: a new flow (same parameters) carrying 4010001; JSON gets 410 + `use_flow_id`. */
async function expiredFlow(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, flow: FlowRow) {
  const now = ctx.clock.now();
  const csrfToken = ensureCsrfToken(req, reply, ctx.config);
  const session = await currentSession(ctx, req);
  const fresh = await createLoginFlow(ctx, {
    aal2Nodes: totpLoginNodes(),
    refresh: flow.refresh,
    requestedAal: flow.requested_aal === 'aal2' ? 'aal2' : 'aal1',
    returnTo: flow.return_to,
    loginChallenge: flow.oauth2_login_challenge,
    identifier: session && flow.refresh ? sessionIdentifier(session) : '',
    hiddenIdentifier: !!session && flow.refresh,
    reauthMessage: !!session && flow.refresh,
    requestUrl: flow.request_url,
    csrfToken,
    extraMessages: [messages.loginExpired(flow.expires_at, now)],
  });
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.login, { flow: fresh.id }));
  const minutes = (now.getTime() - flow.expires_at.getTime()) / 60_000;
  throw new IdentityError(410, {
    id: 'self_service_flow_expired',
    message: 'self-service flow expired',
    reason: `The self-service flow expired ${minutes.toFixed(2)} minutes ago, initialize a new one.`,
    extra: {
      use_flow_id: fresh.id,
      expired_at: flow.expires_at.toISOString(),
      since: Math.round((now.getTime() - flow.expires_at.getTime()) * 1e6),
    },
  });
}

/** Issues a new session (new token at every authentication), then answers or hands over to Hydra. */
async function completeLogin(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  identityId: string,
  method: string,
  previous: ActiveSession | undefined,
  provider?: string,
) {
  const now = ctx.clock.now();
  const step: AuthMethod = {
    method,
    aal: METHOD_AAL[method] === 'aal2' ? 'aal2' : 'aal1',
    completed_at: now.toISOString(),
    ...(provider ? { provider } : {}),
  };
  const keep = previous && previous.row.identity_id === identityId ? previous.row.authentication_methods : [];
  const { token, row } = await ctx.db.transaction().execute(async (trx) => {
    if (previous) await revokeSession(trx, previous.row.id, now);
    return createSession(trx, {
      identityId,
      methods: [...keep, step],
      now,
      lifespanMs: ctx.config.sessionLifespanMs,
      ip: req.ip,
      userAgent: req.headers['user-agent'] ?? '',
    });
  });
  setSessionCookie(reply, ctx.config, token, row.expires_at);

  const identity = (await loadIdentity(ctx.db, identityId))!;
  if (hasSecondFactor(identity) && row.aal !== 'aal2') {
    // First factor done; whoami requires the highest available AAL: continue with the second factor.
    const to = aal2LoginUrl(ctx, { return_to: flow.return_to, login_challenge: flow.oauth2_login_challenge });
    if (!wantsJson(req)) return redirect(reply, to);
    throw errors.browserLocationChange(to);
  }
  if (flow.oauth2_login_challenge) {
    const { redirect_to } = await acceptOAuth2Login(ctx, flow.oauth2_login_challenge, row);
    if (!wantsJson(req)) return redirect(reply, redirect_to);
    throw errors.browserLocationChange(redirect_to);
  }
  const returnTo = flow.return_to ?? ctx.config.defaultReturnUrl;
  if (!wantsJson(req)) return redirect(reply, returnTo);
  return reply.code(200).send({
    session: toApiSession({ row, identity }, ctx.config.publicUrl),
    continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: returnTo }],
  });
}
