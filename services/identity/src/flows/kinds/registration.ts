import type { IdentityContext } from '../../context.ts';
import { errors } from '../../errors/identity-error.ts';
import { identityEmail, loadIdentity, toApiIdentity } from '../../identities/repo.ts';
import { validReturnTo } from '../../http/return-to.ts';
import { signUpOpen } from '../../strategies/registration/sign-up-directory.ts';
import { messages } from '../../ui/messages.ts';
import type { FlowKindSpec, FlowRequest } from '../kind.ts';
import { baseFlow } from '../render.ts';
import { startVerification } from './verification.ts';

/**
 * Registration (issue 25): off, as Kratos answers a disabled flow (400 `self_service_flow_disabled`,
 * browsers to the error page), until an organisation opens self sign-up for its domains. Then the
 * flow takes `password` with `traits` and creates the member; the session comes only once the
 * address is proven by the mailed code (then the app continues with the terms and the 2FA grace).
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
   * No session yet (Kratos without its `session` after-hook): the person proves the address first.
   * Kratos's `verification` after-hook makes a verification flow whose code is mailed at once; the
   * answer's `continue_with` shows its UI, where browsers go next. That flow, in this browser, issues
   * the session once the code is entered (`verificationKind`).
   */
  async finish({ flow, outcome, req }, ctx, engine) {
    const identity = await loadIdentity(ctx.db, outcome.identityId!);
    if (!identity) throw new Error('the registered identity was not found');
    const email = identityEmail(identity);
    const signIn = { identity_id: identity.row.id, method: outcome.method ?? 'password' };
    const verification = await startVerification(flow, req, { email, signIn }, ctx, engine);
    const body = {
      identity: toApiIdentity(identity, ctx.config.publicUrl, false),
      continue_with: [{ action: 'show_verification_ui', flow: verification }],
    };
    return { type: 'answer', status: 200, body, browserTo: verification.url };
  },
};
