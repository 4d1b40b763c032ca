import type { SettingsFlow, UiContainer } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import { updateFlow } from '../../db/flows.ts';
import type { FlowRow } from '../../db/schema.ts';
import { errors, sessionErrors } from '../../errors/identity-error.ts';
import { validReturnTo } from '../../http/return-to.ts';
import { loadIdentity, toApiIdentity, type LoadedIdentity } from '../../identities/repo.ts';
import { aal2LoginUrl, meetsHighestAal } from '../../sessions/policy.ts';
import { rotateSessionToken, type ActiveSession } from '../../sessions/repo.ts';
import { withSsoManagedNotice } from '../../strategies/oidc/sso-managed.ts';
import { messages } from '../../ui/messages.ts';
import type { FlowKindSpec, FlowRequest } from '../kind.ts';
import { baseFlow } from '../render.ts';
import type { Reply } from '../outcome.ts';

/**
 * Where a settings change that needs a fresh login sends the browser: back to this flow after, or,
 * for a flow started with `return_to` (the account page), back there, where the change is made again
 * in a new flow with the now privileged session.
 */
export function settingsRefreshUrl(ctx: IdentityContext, flow: Pick<FlowRow, 'id' | 'return_to'>): string {
  const u = new URL(`${ctx.config.publicUrl}/self-service/login/browser`);
  u.searchParams.set('refresh', 'true');
  u.searchParams.set(
    'return_to',
    flow.return_to ?? `${ctx.config.publicUrl}/self-service/settings?flow=${flow.id}`,
  );
  return u.toString();
}

function requireAal(ctx: IdentityContext, session: ActiveSession, returnTo?: string) {
  if (!meetsHighestAal(session))
    throw sessionErrors.aal2Required(aal2LoginUrl(ctx, { return_to: returnTo ?? null }));
}

/** No session: JSON 401; a browser goes to the login init endpoint. */
async function requireSession(
  ctx: IdentityContext,
  req: FlowRequest,
): Promise<{ session: ActiveSession } | { reply: Reply }> {
  const session = await req.session();
  if (session) return { session };
  const browserTo = `${ctx.config.publicUrl}/self-service/login/browser`;
  return { reply: { type: 'error', error: errors.unauthorized(), browserTo } };
}

function renderSettingsFlow(
  flow: FlowRow,
  ui: UiContainer,
  identity: LoadedIdentity,
  publicUrl: string,
  continueWith?: unknown[],
): SettingsFlow {
  return {
    ...baseFlow(flow, withSsoManagedNotice(flow, ui)),
    identity: toApiIdentity(identity, publicUrl, false),
    ...(continueWith ? { continue_with: continueWith } : {}),
  } as SettingsFlow;
}

/** Settings for the signed-in identity (its highest AAL required); strategies: profile, password, totp. */
export const settingsKind: FlowKindSpec = {
  kind: 'settings',

  async begin(req, ctx) {
    const returnTo = validReturnTo(ctx.config, req.query('return_to'));
    const r = await requireSession(ctx, req);
    if ('reply' in r) return r;
    requireAal(ctx, r.session, `${ctx.config.publicUrl}${req.url}`);
    return {
      start: {
        state: 'show_form',
        returnTo,
        identity: r.session.identity,
        session: r.session,
        messages: [],
      },
    };
  },

  async restart(flow, req, msgs) {
    const session = (await req.session())!;
    return {
      state: 'show_form',
      returnTo: flow.return_to,
      identity: session.identity,
      session,
      messages: msgs,
    };
  },

  render: async (flow, ui, ctx, { req }) =>
    renderSettingsFlow(flow, ui, (await req.session())!.identity, ctx.config.publicUrl),

  async beforeFetch(req) {
    if (!(await req.session())) throw errors.unauthorized();
  },

  async owner(flow, req, ctx) {
    const r = await requireSession(ctx, req);
    if ('reply' in r) return r.reply;
    if (flow.identity_id !== r.session.row.identity_id) throw sessionErrors.identityMismatch();
  },

  async access(_flow, req, ctx) {
    requireAal(ctx, (await req.session())!);
  },

  async afterExpiry(_flow, req, ctx) {
    requireAal(ctx, (await req.session())!);
  },

  fetchCsrfReason: 'The anti-CSRF cookie does not belong to this flow.',
  fetchExpiredHasId: false,
  expiredMessage: messages.settingsExpired,
  replacedWording: 'minutes',
  csrfFirst: true,
  noStrategy: messages.noSettingsStrategy,

  /** Saved: the form is rebuilt from the updated identity, state `success`, message 1050001. */
  async finish({ flow, outcome, req, transact }, ctx, engine) {
    const session = (await req.session())!;
    // A session that just gained its second factor gets a new token (the cookie is replaced), so a
    // token copied before the second factor does not carry the new assurance level. API clients keep
    // their token: a settings answer has no place to hand them a new one.
    const rotate = outcome.aalRaised === true && req.sessionFromCookie();
    const token = await transact(async (trx) =>
      rotate ? rotateSessionToken(trx, session.row.id, ctx.clock.now()) : undefined,
    );
    if (token) req.setSessionCookie(token, session.row.expires_at);
    const identity = (await loadIdentity(ctx.db, session.row.identity_id))!;
    const { nodes, internal } = await engine.formFor('settings', flow, { session, identity });
    const ui: UiContainer = {
      action: (flow.ui as UiContainer).action,
      method: 'POST',
      nodes,
      messages: [messages.saved()],
    };
    const now = ctx.clock.now();
    await updateFlow(ctx.db, flow.id, { ui, state: 'success', internal }, now);
    const updated: FlowRow = { ...flow, ui, state: 'success', internal, updated_at: now };
    const continueWith = flow.return_to
      ? [{ action: 'redirect_browser_to', redirect_browser_to: flow.return_to }]
      : undefined;
    return {
      type: 'answer',
      status: 200,
      body: renderSettingsFlow(
        updated,
        engine.uiFor(updated, req),
        identity,
        ctx.config.publicUrl,
        continueWith,
      ),
      browserTo: flow.return_to ?? engine.uiUrl('settings', flow.id),
    };
  },
};
