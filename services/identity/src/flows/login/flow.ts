import type { FastifyRequest } from 'fastify';
import type { LoginFlow, UiContainer, UiNode } from '@ory/client';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { cookieMatchesFlow, csrfCookieToken, csrfHash, maskToken } from '../../http/csrf.ts';
import { messages } from '../../ui/messages.ts';
import { passwordLoginNodes, setNodeValue } from '../../ui/nodes.ts';
import { insertFlow } from '../flow-store.ts';

export interface LoginFlowParams {
  refresh: boolean;
  requestedAal: 'aal1' | 'aal2';
  returnTo: string | null;
  loginChallenge: string | null;
  /** Prefilled identifier (refresh flows with a session). */
  identifier: string;
  /** Refresh with a session: the identifier is hidden and 1010003 is shown. */
  hiddenIdentifier: boolean;
  reauthMessage: boolean;
  requestUrl: string;
  csrfToken: string;
  extraMessages?: UiContainer['messages'];
  /** Extra nodes for second-factor flows (added by strategies). */
  aal2Nodes?: UiNode[];
}

export const loginAction = (ctx: Ctx, id: string) => `${ctx.config.publicUrl}/self-service/login?flow=${id}`;

export async function createLoginFlow(ctx: Ctx, p: LoginFlowParams): Promise<FlowRow> {
  const now = ctx.clock.now();
  const msgs = [...(p.extraMessages ?? [])];
  if (p.reauthMessage) msgs.push(messages.loginReauth());
  if (p.requestedAal === 'aal2') msgs.push(messages.loginMfa());
  const nodes =
    p.requestedAal === 'aal2' && p.aal2Nodes
      ? p.aal2Nodes
      : passwordLoginNodes({ identifier: p.identifier, refresh: p.hiddenIdentifier });
  return insertFlow(ctx.db, {
    kind: 'login',
    type: 'browser',
    state: 'choose_method',
    csrfHash: csrfHash(p.csrfToken),
    requestUrl: p.requestUrl,
    returnTo: p.returnTo,
    refresh: p.refresh,
    requestedAal: p.requestedAal,
    oauth2LoginChallenge: p.loginChallenge,
    ui: (id) => ({
      action: loginAction(ctx, id),
      method: 'POST',
      nodes,
      ...(msgs.length ? { messages: msgs } : {}),
    }),
    now,
    lifespanMs: ctx.config.flowLifespanMs,
  });
}

/**
 * The Kratos login flow JSON. The csrf node gets a freshly masked token when the request carries
 * the cookie the flow is bound to (or `csrfToken`, just set in this response).
 */
export function renderLoginFlow(
  ctx: Ctx,
  req: FastifyRequest,
  flow: FlowRow,
  opts: { csrfToken?: string; oauth2LoginRequest?: unknown } = {},
): LoginFlow {
  const token =
    opts.csrfToken ??
    (cookieMatchesFlow(req, ctx.config, flow.csrf_hash) ? csrfCookieToken(req, ctx.config) : undefined);
  const ui = setNodeValue(flow.ui as UiContainer, 'csrf_token', token ? maskToken(token) : '');
  return {
    id: flow.id,
    organization_id: null,
    type: flow.type,
    expires_at: flow.expires_at.toISOString(),
    issued_at: flow.issued_at.toISOString(),
    request_url: flow.request_url,
    ...(flow.return_to ? { return_to: flow.return_to } : {}),
    ui,
    created_at: flow.created_at.toISOString(),
    updated_at: flow.updated_at.toISOString(),
    refresh: flow.refresh,
    requested_aal: flow.requested_aal as LoginFlow['requested_aal'],
    state: flow.state,
    ...(flow.oauth2_login_challenge
      ? { oauth2_login_challenge: flow.oauth2_login_challenge, oauth2_login_request: opts.oauth2LoginRequest }
      : {}),
  } as LoginFlow;
}
