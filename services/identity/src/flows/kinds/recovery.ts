import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { parseDuration } from '@acme/service-kit/duration';
import type { IdentityContext } from '../../context.ts';
import { isUuid } from '../../db/db.ts';
import { insertFlow, updateFlow } from '../../db/flows.ts';
import { recordSecurityEvent } from '../../db/security-events.ts';
import { errors } from '../../errors/identity-error.ts';
import { readJson } from '../../http/body.ts';
import { loadIdentity } from '../../identities/repo.ts';
import { createSession, revokeSession } from '../../sessions/repo.ts';
import { hashCode, newCode } from '../../strategies/code/code.ts';
import { messages } from '../../ui/messages.ts';
import { enterCodeNodes } from '../../ui/nodes.ts';
import type { FlowEngine } from '../engine.ts';
import { codeFlowKind } from './code.ts';

/**
 * Account recovery. A correct code signs the user in (`code_recovery`), and the browser continues in a
 * new settings flow (message 1060001) to set a password, as Kratos does.
 */
export const recoveryKind = codeFlowKind('recovery', {
  async begin(req, ctx, returnTo) {
    if (await req.session()) {
      const browserTo = returnTo ?? ctx.config.defaultReturnUrl;
      return { type: 'error', error: errors.sessionAlreadyAvailable(), browserTo };
    }
    return undefined;
  },
  expiredMessage: messages.recoveryExpired,
  noStrategy: messages.noRecoveryStrategy,
  csrfFirst: true,
  async finish({ flow, outcome, req, transact }, ctx, engine) {
    const identityId = outcome.identityId!;
    const now = ctx.clock.now();
    const previous = await req.session();
    const { token, row } = await transact(async (trx) => {
      await updateFlow(
        trx,
        flow.id,
        { state: 'passed_challenge', internal: { ...flow.internal, code_hash: null } },
        now,
      );
      if (previous) await revokeSession(trx, previous.row.id, now);
      await recordSecurityEvent(trx, ctx, {
        type: 'recovery.used',
        subjectId: identityId,
        client: { ip: req.ip, userAgent: req.userAgent },
        details: { method: 'code' },
        at: now,
      });
      return createSession(trx, {
        identityId,
        methods: [{ method: 'code_recovery', aal: 'aal1', completed_at: now.toISOString() }],
        now,
        lifespanMs: ctx.config.sessionLifespanMs,
        ip: req.ip,
        userAgent: req.userAgent,
      });
    });
    const api = flow.type === 'api';
    // API flows: the token goes in the answer, never a cookie (and the settings flow is an API flow).
    if (!api) req.setSessionCookie(token, row.expires_at);
    const csrfToken = api ? randomBytes(32).toString('base64url') : req.csrf.ensure();
    const identity = (await loadIdentity(ctx.db, identityId))!;
    const settings = await engine.createFlow(
      'settings',
      {
        state: 'show_form',
        returnTo: flow.return_to,
        identity,
        messages: [messages.recovered(ctx.config.privilegedSessionMaxAgeMs / 60_000)],
      },
      { csrfToken, requestUrl: flow.request_url, type: api ? 'api' : 'browser' },
    );
    if (api) {
      // Kratos's continue_with for native clients: the session token, then the settings flow.
      return {
        type: 'answer',
        status: 200,
        body: {
          id: flow.id,
          type: 'api',
          state: 'passed_challenge',
          continue_with: [
            { action: 'set_ory_session_token', ory_session_token: token },
            {
              action: 'show_settings_ui',
              flow: { id: settings.id, url: engine.uiUrl('settings', settings.id) },
            },
          ],
        },
      };
    }
    return { type: 'location_change', to: engine.uiUrl('settings', settings.id) };
  },
});

/** `POST /admin/recovery/code {identity_id, expires_in?}`: an invitation/recovery code without CSRF (admin API). */
export function registerAdminRecoveryRoutes(
  app: FastifyInstance,
  ctx: IdentityContext,
  engine: FlowEngine,
): void {
  /**
   * Kratos's link method is not offered: its token travels in the URL, where browser history,
   * proxies and logs keep it. The operator gets a code instead (`/admin/recovery/code`, whose
   * `recovery_link` opens the flow without carrying the code).
   */
  app.post('/admin/recovery/link', async () => {
    throw errors.badRequest(
      'The link recovery method is not enabled: create a recovery code with POST /admin/recovery/code instead.',
    );
  });

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
        action: `${ctx.config.publicUrl}/self-service/recovery?flow=${id}`,
        method: 'POST',
        nodes: enterCodeNodes({ withCsrf: false, label: messages.recoveryCode() }),
      }),
      internal: { identity_id: body.identity_id, admin: true },
      now,
      lifespanMs: lifespan,
    });
    await updateFlow(
      ctx.db,
      flow.id,
      { internal: { ...flow.internal, code_hash: hashCode(ctx.config.codeSecrets, flow.id, code) } },
      now,
    );
    return reply.code(201).send({
      recovery_link: engine.uiUrl('recovery', flow.id),
      recovery_code: code,
      expires_at: flow.expires_at.toISOString(),
    });
  });
}
