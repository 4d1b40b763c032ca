import { openApi } from '@acme/service-kit/openapi';
import { z } from 'zod';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdentityContext } from '../context.ts';
import { getFlow, type FlowKind } from '../db/flows.ts';
import { errors } from '../errors/identity-error.ts';
import { readFormOrJson } from '../http/body.ts';
import { SESSION_COOKIE, sessionTokenFrom, setSessionCookie } from '../http/cookies.ts';
import { cookieMatchesFlow, csrfCookieToken, ensureCsrfToken, verifyCsrf } from '../http/csrf.ts';
import { qs } from '../http/query.ts';
import { redirect, respond } from '../http/responder.ts';
import { currentSession } from '../sessions/current.ts';
import type { ActiveSession } from '../sessions/repo.ts';
import type { FlowEngine } from './engine.ts';
import { registrationGate } from './kinds/registration.ts';
import type { FlowRequest } from './kind.ts';
import type { CallbackInput } from './strategy.ts';

/** The engine's view of one HTTP exchange (cookies it sets go on `reply`). */
function flowRequest(ctx: IdentityContext, req: FastifyRequest, reply: FastifyReply): FlowRequest {
  let session: Promise<ActiveSession | undefined> | undefined;
  return {
    url: req.url,
    ip: req.ip,
    userAgent: req.headers['user-agent'] ?? '',
    query: (key) => qs(req.query, key),
    body: () => readFormOrJson(req),
    session: () => (session ??= currentSession(ctx, req)),
    csrf: {
      ensure: () => ensureCsrfToken(req, reply, ctx.config),
      tokenFor: (hash) =>
        cookieMatchesFlow(req, ctx.config, hash) ? csrfCookieToken(req, ctx.config) : undefined,
      matches: (hash) => cookieMatchesFlow(req, ctx.config, hash),
      verify: (hash, sent) => verifyCsrf(req, ctx.config, hash, sent),
    },
    setSessionCookie: (token, expiresAt) => setSessionCookie(reply, ctx.config, token, expiresAt),
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    sessionFromCookie: () => {
      const token = sessionTokenFrom(req);
      return token !== undefined && token === req.cookies[SESSION_COOKIE];
    },
  };
}

const KINDS: FlowKind[] = ['login', 'settings', 'recovery', 'verification', 'registration'];

/**
 * The self-service endpoints of every flow kind, all answered by the engine:
 * `GET /self-service/<kind>/browser`, `GET /self-service/<kind>/flows?id=`, `POST /self-service/<kind>?flow=`,
 * plus the extra endpoints strategies declare.
 */
/** A single sign-on provider's id in a callback path. */
const ProviderParamsSchema = z.object({ provider: z.string() });
const SettingsReturnQuerySchema = z.object({ flow: z.string() });

export function registerFlowRoutes(app: FastifyInstance, ctx: IdentityContext, engine: FlowEngine): void {
  for (const kind of KINDS) {
    // Registration is off (Kratos's disabled flow) until an organisation opens self sign-up.
    const gate = kind === 'registration' ? { preHandler: async () => registrationGate(ctx) } : {};
    const browserErrors = { config: { browserErrors: true }, ...gate };
    app.get(`/self-service/${kind}/browser`, browserErrors, async (req, reply) =>
      respond(req, reply, await engine.create(kind, flowRequest(ctx, req, reply))),
    );
    // Native (API) flows: no CSRF cookie or token; a session token instead of a cookie.
    app.get(`/self-service/${kind}/api`, gate, async (req, reply) =>
      respond(req, reply, await engine.createApi(kind, flowRequest(ctx, req, reply))),
    );
    app.get(`/self-service/${kind}/flows`, gate, async (req, reply) =>
      respond(req, reply, await engine.fetch(kind, flowRequest(ctx, req, reply))),
    );
    // Login and settings carry WebAuthn answers (a browser's registration answer is 1–3 KB as JSON,
    // more as a form): their submits get IDENTITY_WEBAUTHN_BODY_LIMIT; the other kinds keep the
    // public API's limit.
    const bodyLimit =
      kind === 'login' || kind === 'settings'
        ? Math.max(ctx.config.bodyLimit, ctx.config.webauthn.bodyLimit)
        : ctx.config.bodyLimit;
    app.post(`/self-service/${kind}`, { ...browserErrors, bodyLimit }, async (req, reply) =>
      respond(req, reply, await engine.submit(kind, flowRequest(ctx, req, reply))),
    );
    for (const strategy of engine.registry[kind]) {
      for (const cb of strategy.callbacks ?? []) {
        app.route({
          method: cb.method,
          url: cb.path,
          config: {
            browserErrors: true,
            openapi: {
              summary: "A provider's answer in the browser: on to the flow (or its error page).",
              params: ProviderParamsSchema,
              ...(cb.method === 'POST'
                ? { body: z.record(z.string(), z.string()), bodyType: 'application/x-www-form-urlencoded' }
                : {}),
              responses: { 303: { description: 'On to the flow, the application or the error page.' } },
            },
          },
          ...(cb.bodyLimit ? { bodyLimit: cb.bodyLimit(ctx.config) } : {}),
          handler: async (req, reply) => {
            const input: CallbackInput = {
              query: stringRecord(req.query),
              params: stringRecord(req.params),
              body: cb.method === 'POST' ? readFormOrJson(req) : {},
            };
            return respond(req, reply, await engine.callback(kind, cb, input, flowRequest(ctx, req, reply)));
          },
        });
      }
    }
  }

  // After a re-authentication Kratos returns the browser here; continue in the settings UI.
  app.get(
    '/self-service/settings',
    openApi({
      summary: 'After a re-authentication: on to the settings screen.',
      query: SettingsReturnQuerySchema,
      responses: { 303: { description: 'The settings screen of the flow.' } },
    }),
    async (req, reply) => {
      const flow = await getFlow(ctx.db, 'settings', qs(req.query, 'flow'));
      if (!flow) throw errors.flowNotFound();
      return redirect(reply, engine.uiUrl('settings', flow.id));
    },
  );
}

function stringRecord(v: unknown): Record<string, string> {
  // Own data properties only: a query name never reaches a prototype.
  return Object.fromEntries(
    Object.entries((v ?? {}) as Record<string, unknown>).flatMap(([k, x]) => {
      const first = Array.isArray(x) ? x[0] : x;
      return typeof first === 'string' ? [[k, first]] : [];
    }),
  );
}
