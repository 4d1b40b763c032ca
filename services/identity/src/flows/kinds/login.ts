import type { LoginFlow, UiContainer, UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import type { AuthMethod, FlowRow } from '../../db/schema.ts';
import { securityEventInsert } from '../../db/security-events.ts';
import { errors } from '../../errors/identity-error.ts';
import { validReturnTo } from '../../http/return-to.ts';
import { METHOD_AAL } from '../../sessions/aal.ts';
import { aal2LoginUrl, hasSecondFactor } from '../../sessions/policy.ts';
import {
  createSessionLoadingIdentity,
  revokeSession,
  toApiSession,
  type ActiveSession,
} from '../../sessions/repo.ts';
import { identityEmail, loadIdentity, type LoadedIdentity } from '../../identities/repo.ts';
import { messages } from '../../ui/messages.ts';
import type { FlowKindSpec, FlowStart } from '../kind.ts';
import { flowRequestFields } from '../render.ts';
import { startVerification } from './verification.ts';

/** Hydra's accept-login for a session (the login challenge of an OAuth2 authorization). */
async function acceptOAuth2Login(
  ctx: IdentityContext,
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

/** A login flow's start: the reauthentication and second-factor messages follow from its parameters. */
function loginStart(
  p: { refresh: boolean; requestedAal: 'aal1' | 'aal2'; returnTo: string | null; challenge: string | null },
  session: ActiveSession | undefined,
  extraMessages: UiText[],
): FlowStart {
  const msgs = [...extraMessages];
  if (session && p.refresh) msgs.push(messages.loginReauth());
  if (p.requestedAal === 'aal2') msgs.push(messages.loginMfa());
  return {
    state: 'choose_method',
    returnTo: p.returnTo,
    refresh: p.refresh,
    requestedAal: p.requestedAal,
    oauth2LoginChallenge: p.challenge,
    session,
    messages: msgs,
  };
}

/** The Kratos login flow JSON. */
function renderLoginFlow(flow: FlowRow, ui: UiContainer, oauth2LoginRequest: unknown): LoginFlow {
  return {
    id: flow.id,
    organization_id: null,
    ...flowRequestFields(flow),
    ui,
    created_at: flow.created_at.toISOString(),
    updated_at: flow.updated_at.toISOString(),
    refresh: flow.refresh,
    requested_aal: flow.requested_aal as LoginFlow['requested_aal'],
    state: flow.state,
    ...(flow.oauth2_login_challenge
      ? { oauth2_login_challenge: flow.oauth2_login_challenge, oauth2_login_request: oauth2LoginRequest }
      : {}),
  } as LoginFlow;
}

/** Thrown inside the session's transaction to roll it back: the identity's address was never proven. */
class AddressNeverProven extends Error {
  readonly identity: LoadedIdentity;
  constructor(identity: LoadedIdentity) {
    super('The address of this identity was never proven.');
    this.identity = identity;
  }
}

/**
 * Login (`refresh`, `aal`, `return_to`, `login_challenge`). A first factor on an identity with a second
 * factor continues with an aal2 flow; a login challenge is accepted at Hydra once the session is complete.
 */
export const loginKind: FlowKindSpec = {
  kind: 'login',

  async begin(req, ctx) {
    const aal = req.query('aal') || 'aal1';
    if (aal !== 'aal1' && aal !== 'aal2') {
      throw errors.badRequest(
        `Unable to parse AuthenticationMethod Assurance Level (AAL): expected one of [aal1, aal2] but got ${aal.slice(0, 20)}`,
      );
    }
    let refresh = req.query('refresh') === 'true';
    const returnTo = validReturnTo(ctx.config, req.query('return_to'));
    const challenge = req.query('login_challenge');
    if (challenge !== undefined && challenge === '')
      throw errors.badRequest('the login_challenge parameter is present but empty');
    const session = await req.session();

    let loginRequest: unknown;
    const notices: UiText[] = [];
    if (challenge) {
      const lr = await ctx.hydra.getLoginRequest(challenge);
      loginRequest = lr;
      if (lr.skip && session && session.row.identity_id === lr.subject) {
        const { redirect_to } = await acceptOAuth2Login(ctx, challenge, session.row);
        return { reply: { type: 'error', error: errors.sessionAlreadyAvailable(), browserTo: redirect_to } };
      }
      if (!lr.skip) refresh = true; // Kratos forces a refresh when Hydra cannot skip (kratos #3670)
      // The authorization server remembered a login for someone deactivated since: it asks again,
      // and the flow tells the person why (only this browser's remembered subject is looked at).
      if (lr.subject && session?.row.identity_id !== lr.subject) {
        const remembered = await loadIdentity(ctx.db, lr.subject);
        if (remembered && remembered.row.state !== 'active') notices.push(messages.accountDeactivated());
      }
    }
    if (aal === 'aal2' && !session) throw errors.aal1Required();
    if (session && sessionSatisfies(session, refresh, aal)) {
      const browserTo = returnTo ?? ctx.config.defaultReturnUrl;
      return { reply: { type: 'error', error: errors.sessionAlreadyAvailable(), browserTo } };
    }
    if (aal === 'aal2' && session && !hasSecondFactor(session.identity)) {
      throw errors.badRequest('No second factor is set up for this identity, so aal2 can not be requested.');
    }
    const start = loginStart(
      { refresh, requestedAal: aal, returnTo, challenge: challenge ?? null },
      session,
      notices,
    );
    return { start, extra: loginRequest };
  },

  async restart(flow, req, extraMessages) {
    const p = {
      refresh: flow.refresh,
      requestedAal: flow.requested_aal === 'aal2' ? ('aal2' as const) : ('aal1' as const),
      returnTo: flow.return_to,
      challenge: flow.oauth2_login_challenge,
    };
    return loginStart(p, await req.session(), extraMessages);
  },

  render: (flow, ui, _ctx, { extra }) => renderLoginFlow(flow, ui, extra),

  fetchExtra: (flow, ctx) =>
    flow.oauth2_login_challenge
      ? ctx.hydra.getLoginRequest(flow.oauth2_login_challenge).catch(() => undefined)
      : Promise.resolve(undefined),

  fetchCsrfReason: 'The anti-CSRF cookie was not found or does not belong to this flow.',
  fetchExpiredHasId: true,

  async afterExpiry(flow, req, ctx) {
    const session = await req.session();
    if (session && sessionSatisfies(session, flow.refresh, flow.requested_aal)) {
      const browserTo = flow.return_to ?? ctx.config.defaultReturnUrl;
      return { type: 'error', error: errors.sessionAlreadyAvailable(), browserTo };
    }
  },

  expiredMessage: messages.loginExpired,
  replacedWording: 'minutes',
  csrfFirst: true,
  noStrategy: messages.noLoginStrategy,

  /** Issues a new session (a new token at every authentication), then answers or hands over to Hydra. */
  async finish({ flow, outcome, req, transact }, ctx, engine) {
    const identityId = outcome.identityId!;
    const method = outcome.method!;
    const previous = await req.session();
    const now = ctx.clock.now();
    const step: AuthMethod = {
      method,
      aal: outcome.aal ?? (METHOD_AAL[method] === 'aal2' ? 'aal2' : 'aal1'),
      completed_at: now.toISOString(),
      ...(outcome.provider ? { provider: outcome.provider } : {}),
    };
    const keep =
      previous && previous.row.identity_id === identityId ? previous.row.authentication_methods : [];
    const session = {
      identityId,
      methods: [...keep, step],
      now,
      lifespanMs: ctx.config.sessionLifespanMs,
      ip: req.ip,
      userAgent: req.userAgent,
    };
    // The new session, the identity the answer needs, and the sign-in's security event: one statement
    // (a transaction only when a previous session ends or the strategy commits too).
    const signedIn = {
      type: 'signin.succeeded' as const,
      subjectId: identityId,
      client: { ip: req.ip, userAgent: req.userAgent },
      details: { method, aal: step.aal, ...(outcome.provider ? { provider: outcome.provider } : {}) },
      at: now,
    };
    // Kratos's `require_verified_address` hook: no session for an address never proven (a self
    // sign-up whose code was never entered). The session statement reads the identity anyway, so the
    // check costs nothing on the way in; when it fails, the transaction rolls the session and its event
    // back, the strategy's own bookkeeping commits alone, and a fresh code is mailed: its flow, in
    // this browser, issues the session once the code is entered.
    let made: Awaited<ReturnType<typeof createSessionLoadingIdentity>>;
    try {
      made = await transact(async (trx) => {
        if (previous) await revokeSession(trx, previous.row.id, now);
        const created = await createSessionLoadingIdentity(
          trx,
          session,
          securityEventInsert(trx, ctx, signedIn),
        );
        if (!created.identity.verifiable.some((a) => a.verified))
          throw new AddressNeverProven(created.identity);
        return created;
      });
    } catch (e) {
      if (!(e instanceof AddressNeverProven)) throw e;
      if (outcome.commit) await ctx.db.transaction().execute((trx) => outcome.commit!(trx));
      const signIn = { identity_id: identityId, method };
      const email = identityEmail(e.identity);
      const verification = await startVerification(flow, req, { email, signIn }, ctx, engine);
      const ui = { ...engine.uiFor(flow, req), messages: [messages.addressNotVerified()] };
      const body = {
        ...(loginKind.render(flow, ui, ctx, { req }) as object),
        continue_with: [{ action: 'show_verification_ui', flow: verification }],
      };
      return { type: 'answer', status: 400, body, browserTo: verification.url };
    }
    const { token, row, identity } = made;
    if (flow.type === 'api') {
      // Native clients get the session and its token (Kratos): with a second factor the session is
      // aal1 until an `aal=aal2` API flow submitted with this token completes it.
      return {
        type: 'answer',
        status: 200,
        body: { session: toApiSession({ row, identity }, ctx.config.publicUrl), session_token: token },
      };
    }
    req.setSessionCookie(token, row.expires_at);

    if (hasSecondFactor(identity) && row.aal !== 'aal2') {
      // First factor done; whoami requires the highest available AAL: continue with the second factor.
      const to = aal2LoginUrl(ctx, {
        return_to: flow.return_to,
        login_challenge: flow.oauth2_login_challenge,
      });
      return { type: 'location_change', to };
    }
    if (flow.oauth2_login_challenge) {
      const { redirect_to } = await acceptOAuth2Login(ctx, flow.oauth2_login_challenge, row);
      return { type: 'location_change', to: redirect_to };
    }
    const returnTo = flow.return_to ?? ctx.config.defaultReturnUrl;
    return {
      type: 'answer',
      status: 200,
      body: {
        session: toApiSession({ row, identity }, ctx.config.publicUrl),
        continue_with: [{ action: 'redirect_browser_to', redirect_browser_to: returnTo }],
      },
      browserTo: returnTo,
    };
  },
};
