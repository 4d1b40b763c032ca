import type { FastifyRequest } from 'fastify';
import type { UiContainer } from '@ory/client';
import type { Ctx } from '../context.ts';
import type { FlowRow } from '../db/schema.ts';
import { cookieMatchesFlow, csrfCookieToken, maskToken } from '../http/csrf.ts';
import { setNodeValue } from '../ui/nodes.ts';

/** The UI with a freshly masked CSRF token when the request holds the flow's cookie (or `csrfToken`). */
export function renderUi(ctx: Ctx, req: FastifyRequest, flow: FlowRow, csrfToken?: string): UiContainer {
  const ui = flow.ui as UiContainer;
  if (!ui.nodes.some((n) => (n.attributes as { name?: string }).name === 'csrf_token')) return ui;
  const token =
    csrfToken ??
    (cookieMatchesFlow(req, ctx.config, flow.csrf_hash) ? csrfCookieToken(req, ctx.config) : undefined);
  return setNodeValue(ui, 'csrf_token', token ? maskToken(token) : '');
}

/** Fields every self-service flow carries. */
export function baseFlow(ctx: Ctx, req: FastifyRequest, flow: FlowRow, csrfToken?: string) {
  return {
    id: flow.id,
    type: flow.type,
    expires_at: flow.expires_at.toISOString(),
    issued_at: flow.issued_at.toISOString(),
    request_url: flow.request_url,
    ...(flow.return_to ? { return_to: flow.return_to } : {}),
    ui: renderUi(ctx, req, flow, csrfToken),
    state: flow.state,
  };
}
