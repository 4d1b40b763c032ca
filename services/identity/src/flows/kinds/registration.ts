import { randomBytes } from 'node:crypto';
import type { IdentityContext } from '../../context.ts';
import { updateFlow } from '../../db/flows.ts';
import type { FlowRow } from '../../db/schema.ts';
import { verificationCode } from '../../strategies/code/verification.ts';
import { errors } from '../../errors/identity-error.ts';
import { validReturnTo } from '../../http/return-to.ts';
import { signUpOpen } from '../../strategies/registration/sign-up-directory.ts';
import { messages } from '../../ui/messages.ts';
import type { EngineApi, FlowKindSpec, FlowRequest } from '../kind.ts';
import { baseFlow } from '../render.ts';
import { loginKind } from './login.ts';

/**
 * Registration (issue 25): off, as Kratos answers a disabled flow (400 `self_service_flow_disabled`,
 * browsers to the error page), until an organisation opens self sign-up for its domains. Then the
 * flow takes `password` with `traits`; the new member gets a session at once (Kratos's `session`
 * hook), and the app continues with the address's verification by code, the terms and the 2FA grace.
 */

/** Refuses every registration route while no organisation has self sign-up open. */
export async function registrationGate(ctx: Pick<IdentityContext, 'config' | 'clock'>): Promise<void> {
  if (!(await signUpOpen(ctx))) throw errors.registrationDisabled();
}

async function signedIn(req: FlowRequest, ctx: IdentityContext, returnTo: string | null) {
  if (!(await req.session())) return undefined;
  const browserTo = returnTo ?? ctx.config.defaultReturnUrl;
  return { type: 'error' as const, error: errors.sessionAlreadyAvailable(), browserTo };
}

export const registrationKind: FlowKindSpec = {
  kind: 'registration',
  async begin(req, ctx) {
    const returnTo = validReturnTo(ctx.config, req.query('return_to'));
    const reply = await signedIn(req, ctx, returnTo);
    if (reply) return { reply };
    return { start: { state: 'choose_method', returnTo, messages: [] } };
  },
  restart: async (flow, _req, msgs) => ({ state: 'choose_method', returnTo: flow.return_to, messages: msgs }),
  render: (flow, ui) => ({ ...baseFlow(flow, ui), organization_id: null }),
  fetchCsrfReason: 'The anti-CSRF cookie was not found or does not belong to this flow.',
  fetchExpiredHasId: true,
  afterExpiry: (flow, req, ctx) => signedIn(req, ctx, flow.return_to),
  expiredMessage: messages.registrationExpired,
  replacedWording: 'minutes',
  csrfFirst: true,
  noStrategy: messages.noRegistrationStrategy,
  /**
   * The session, as a login gives it, and (Kratos's `verification` after-hook) a verification flow
   * whose code is mailed at once: the answer's `continue_with` shows its UI, where browsers go next.
   */
  async finish(input, ctx, engine) {
    const reply = await loginKind.finish(input, ctx, engine);
    if (reply.type !== 'answer') return reply;
    const body = reply.body as { session?: { identity?: { traits?: { email?: unknown } } } };
    const identity = body.session?.identity;
    const email = identity?.traits?.email;
    if (typeof email !== 'string') return { ...reply, body: { identity, ...body } };
    const verification = await startVerification(input.flow, input.req, email, ctx, engine);
    const next = { action: 'show_verification_ui', flow: verification };
    const withNext = { identity, ...body, continue_with: [next, ...continueWith(body)] };
    return { ...reply, body: withNext, browserTo: verification.url };
  },
};

const continueWith = (body: unknown): unknown[] => {
  const list = (body as { continue_with?: unknown }).continue_with;
  return Array.isArray(list) ? list : [];
};

/** A verification flow for the new address, its code sent (as a submit of `method: code` would). */
async function startVerification(
  registration: FlowRow,
  req: FlowRequest,
  email: string,
  ctx: IdentityContext,
  engine: EngineApi,
): Promise<{ id: string; verifiable_address: string; url: string }> {
  const api = registration.type === 'api';
  const flow = await engine.createFlow(
    'verification',
    { state: 'choose_method', returnTo: registration.return_to, messages: [] },
    {
      csrfToken: api ? randomBytes(32).toString('base64url') : req.csrf.ensure(),
      requestUrl: registration.request_url,
      type: api ? 'api' : 'browser',
    },
  );
  const now = ctx.clock.now();
  const outcome = await verificationCode.submit(
    flow,
    { method: 'code', email },
    {
      service: ctx,
      now,
      session: undefined,
      client: { ip: req.ip, userAgent: req.userAgent },
      attempts: { used: 0, max: Number.POSITIVE_INFINITY, exhausted: false },
    },
  );
  if (outcome.type === 'flow_updated' && outcome.patch) {
    const { ui, state, internal } = outcome.patch;
    const patch = {
      ...(ui ? { ui } : {}),
      ...(state ? { state } : {}),
      internal: { ...flow.internal, ...internal },
    };
    await ctx.db.transaction().execute(async (trx) => {
      await updateFlow(trx, flow.id, patch, now);
      await outcome.commit?.(trx);
    });
  }
  return { id: flow.id, verifiable_address: email, url: engine.uiUrl('verification', flow.id) };
}
