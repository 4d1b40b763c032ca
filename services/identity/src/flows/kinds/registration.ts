import type { IdentityContext } from '../../context.ts';
import { errors } from '../../errors/identity-error.ts';
import { validReturnTo } from '../../http/return-to.ts';
import { signUpOpen } from '../../strategies/registration/sign-up-directory.ts';
import { messages } from '../../ui/messages.ts';
import type { FlowKindSpec, FlowRequest } from '../kind.ts';
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
  /** The session, as a login gives it; Kratos's registration answer carries the identity too. */
  async finish(input, ctx, engine) {
    const reply = await loginKind.finish(input, ctx, engine);
    if (reply.type !== 'answer') return reply;
    const body = reply.body as { session?: { identity?: unknown } };
    return { ...reply, body: { identity: body.session?.identity, ...body } };
  },
};
