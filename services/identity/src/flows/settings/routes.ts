import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UiContainer } from '@ory/client';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { IdentityError, errors, sessionErrors } from '../../errors/identity-error.ts';
import { readFormOrJson } from '../../http/body.ts';
import { cookieMatchesFlow, ensureCsrfToken, verifyCsrf } from '../../http/csrf.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson, withQuery } from '../../http/respond.ts';
import { loadIdentity } from '../../identities/repo.ts';
import { currentSession } from '../../sessions/current.ts';
import { aal2LoginUrl, hasSecondFactor, meetsHighestAal } from '../../sessions/policy.ts';
import type { ActiveSession } from '../../sessions/repo.ts';
import { submitPasswordSettings } from '../../strategies/password/settings.ts';
import { submitProfile, type SettingsOutcome } from '../../strategies/profile/settings.ts';
import { submitTotpSettings } from '../../strategies/totp/settings.ts';
import { newTotpSecret } from '../../strategies/totp/totp.ts';
import { messages } from '../../ui/messages.ts';
import { clearMessages, placeMessages } from '../../ui/nodes.ts';
import { validReturnTo } from '../login/routes.ts';
import { getFlow, isExpired, updateFlow } from '../flow-store.ts';
import { createSettingsFlow, renderSettingsFlow, settingsAction, settingsNodes } from './flow.ts';

/** No session: JSON 401; a browser goes to the login init endpoint. */
async function requireSession(ctx: Ctx, req: FastifyRequest, reply: FastifyReply, returnTo?: string) {
  const session = await currentSession(ctx, req);
  if (session) return session;
  if (!wantsJson(req)) {
    const to = new URL(`${ctx.config.publicUrl}/self-service/login/browser`);
    if (returnTo) to.searchParams.set('return_to', returnTo);
    redirect(reply, to.toString());
    return undefined;
  }
  throw errors.unauthorized();
}

function requireAal(ctx: Ctx, session: ActiveSession, returnTo?: string) {
  if (!meetsHighestAal(session))
    throw sessionErrors.aal2Required(aal2LoginUrl(ctx, { return_to: returnTo ?? null }));
}

const refreshUrl = (ctx: Ctx, flowId: string) => {
  const u = new URL(`${ctx.config.publicUrl}/self-service/login/browser`);
  u.searchParams.set('refresh', 'true');
  u.searchParams.set('return_to', `${ctx.config.publicUrl}/self-service/settings?flow=${flowId}`);
  return u.toString();
};

export function registerSettingsRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/self-service/settings/browser', { config: { browserErrors: true } }, async (req, reply) => {
    const returnTo = validReturnTo(ctx, qs(req.query, 'return_to'));
    const session = await requireSession(ctx, req, reply);
    if (!session) return reply;
    requireAal(ctx, session, `${ctx.config.publicUrl}${req.url}`);
    const csrfToken = ensureCsrfToken(req, reply, ctx.config);
    const flow = await createSettingsFlow(ctx, {
      identity: session.identity,
      returnTo,
      requestUrl: `${ctx.config.publicUrl}${req.url}`,
      csrfToken,
    });
    if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.settings, { flow: flow.id }));
    return reply.send(renderSettingsFlow(ctx, req, flow, session.identity, { csrfToken }));
  });

  app.get('/self-service/settings/flows', async (req, reply) => {
    const session = await currentSession(ctx, req);
    if (!session) throw errors.unauthorized();
    const flow = await getFlow(ctx.db, 'settings', qs(req.query, 'id'));
    if (!flow) throw errors.flowNotFound();
    if (flow.identity_id !== session.row.identity_id) throw sessionErrors.identityMismatch();
    if (!cookieMatchesFlow(req, ctx.config, flow.csrf_hash))
      throw errors.csrf('The anti-CSRF cookie does not belong to this flow.');
    requireAal(ctx, session);
    if (isExpired(flow, ctx.clock.now())) {
      throw new IdentityError(410, {
        reason:
          'The settings flow has expired. Redirect the user to the settings flow init endpoint to initialize a new settings flow.',
        details: {
          redirect_to: `${ctx.config.publicUrl}/self-service/settings/browser`,
          ...(flow.return_to ? { return_to: flow.return_to } : {}),
        },
      });
    }
    return reply.send(renderSettingsFlow(ctx, req, flow, session.identity));
  });

  // After a re-authentication Kratos returns the browser here; continue in the settings UI.
  app.get('/self-service/settings', async (req, reply) => {
    const id = qs(req.query, 'flow');
    const flow = await getFlow(ctx.db, 'settings', id);
    if (!flow) throw errors.flowNotFound();
    return redirect(reply, withQuery(ctx.config.ui.settings, { flow: flow.id }));
  });

  app.post('/self-service/settings', { config: { browserErrors: true } }, async (req, reply) => {
    const flow = await getFlow(ctx.db, 'settings', qs(req.query, 'flow'));
    if (!flow) throw errors.flowNotFound();
    const session = await requireSession(ctx, req, reply);
    if (!session) return reply;
    if (flow.identity_id !== session.row.identity_id) throw sessionErrors.identityMismatch();
    const now = ctx.clock.now();
    if (isExpired(flow, now)) {
      const csrfToken = ensureCsrfToken(req, reply, ctx.config);
      const fresh = await createSettingsFlow(ctx, {
        identity: session.identity,
        returnTo: flow.return_to,
        requestUrl: flow.request_url,
        csrfToken,
        messages: [messages.settingsExpired(flow.expires_at, now)],
      });
      if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.settings, { flow: fresh.id }));
      throw new IdentityError(410, {
        id: 'self_service_flow_expired',
        message: 'self-service flow expired',
        reason: `The self-service flow expired ${((now.getTime() - flow.expires_at.getTime()) / 60_000).toFixed(2)} minutes ago, initialize a new one.`,
        extra: {
          use_flow_id: fresh.id,
          expired_at: flow.expires_at.toISOString(),
          since: (now.getTime() - flow.expires_at.getTime()) * 1e6,
        },
      });
    }
    requireAal(ctx, session);

    let body: Record<string, unknown>;
    try {
      body = readFormOrJson(req);
    } catch (e) {
      if (e instanceof IdentityError && e.status === 400 && !e.init.id) {
        return settingsFailure(ctx, req, reply, flow, session, {
          ok: false,
          messages: [{ pointer: '#/', message: messages.generic(e.message) }],
        });
      }
      throw e;
    }
    verifyCsrf(req, ctx.config, flow.csrf_hash, body.csrf_token);

    const refresh = refreshUrl(ctx, flow.id);
    let outcome: SettingsOutcome;
    switch (body.method) {
      case 'profile':
        outcome = await submitProfile(ctx, session, session.identity, body, refresh);
        break;
      case 'password':
        outcome = await submitPasswordSettings(ctx, session, session.identity, body, refresh);
        break;
      case 'totp':
        outcome = await submitTotpSettings(ctx, session, session.identity, flow, body, refresh);
        break;
      default:
        outcome = { ok: false, messages: [{ pointer: '#/', message: messages.noSettingsStrategy() }] };
    }
    if (!outcome.ok) return settingsFailure(ctx, req, reply, flow, session, outcome);

    // Success: rebuild the form from the updated identity, state `success`, 1050001.
    const identity = (await loadIdentity(ctx.db, session.row.identity_id))!;
    const current = (await getFlow(ctx.db, 'settings', flow.id))!;
    let secret = typeof current.internal.totp_secret === 'string' ? current.internal.totp_secret : '';
    if (!hasSecondFactor(identity) && !secret) secret = newTotpSecret();
    const ui: UiContainer = {
      action: settingsAction(ctx, flow.id),
      method: 'POST',
      nodes: await settingsNodes(ctx, identity, secret),
      messages: [messages.saved()],
    };
    const internal = { ...current.internal, totp_secret: secret || null };
    await updateFlow(ctx.db, flow.id, { ui, state: 'success', internal }, now);
    const updated: FlowRow = { ...current, ui, state: 'success', internal, updated_at: now };
    if (!wantsJson(req))
      return redirect(reply, flow.return_to ?? withQuery(ctx.config.ui.settings, { flow: flow.id }));
    const continueWith = flow.return_to
      ? [{ action: 'redirect_browser_to', redirect_browser_to: flow.return_to }]
      : undefined;
    return reply.send(renderSettingsFlow(ctx, req, updated, identity, continueWith ? { continueWith } : {}));
  });
}

async function settingsFailure(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  session: ActiveSession,
  outcome: Extract<SettingsOutcome, { ok: false }>,
) {
  const now = ctx.clock.now();
  const current = (await getFlow(ctx.db, 'settings', flow.id)) ?? flow;
  const ui = placeMessages(clearMessages(current.ui as UiContainer), outcome.messages);
  await updateFlow(ctx.db, flow.id, { ui }, now);
  if (!wantsJson(req)) return redirect(reply, withQuery(ctx.config.ui.settings, { flow: flow.id }));
  return reply
    .code(400)
    .send(renderSettingsFlow(ctx, req, { ...current, ui, updated_at: now }, session.identity));
}
