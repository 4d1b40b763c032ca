import { randomBytes } from 'node:crypto';
import type { UiContainer, UiNode, UiText } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import { getFlow, insertFlow, isExpired, updateFlow, type FlowKind } from '../db/flows.ts';
import type { FlowRow } from '../db/schema.ts';
import { IdentityError, errors } from '../errors/identity-error.ts';
import { withQuery } from '../http/url.ts';
import { csrfHash, maskToken } from '../http/csrf.ts';
import { messages } from '../ui/messages.ts';
import { clearMessages, csrfNode, placeMessages, setNodeValue } from '../ui/nodes.ts';
import type { EngineApi, FlowKindSpec, FlowRequest, FlowStart } from './kind.ts';
import { CommitRefused, type Outcome, type Reply } from './outcome.ts';
import { outsideTrustedNetworks } from './trusted-networks.ts';
import { errorLabel, outcomeLabel } from '../metrics.ts';
import type { LoadedIdentity } from '../identities/repo.ts';
import type { ActiveSession } from '../sessions/repo.ts';
import type {
  CallbackInput,
  FlowDraft,
  Registry,
  Strategy,
  StrategyCallback,
  StrategyContext,
} from './strategy.ts';

/** A CSRF token nobody holds: API flows store its hash only so the row has one. */
const unusableCsrfToken = () => randomBytes(32).toString('base64url');

/**
 * Kratos refuses an API flow submitted by a browser: a request with an `Origin` or a `Cookie` header
 * (400; use a browser flow instead).
 */
function refuseBrowserOnApiFlow(req: FlowRequest): void {
  if (req.header('origin')) {
    throw errors.badRequest(
      'The HTTP Request Header included the "Origin" key, indicating that this request was made as part of an AJAX request in a Browser. The flow however was initiated as an API request. To prevent potential misuse and mitigate several attack vectors including CSRF, the request has been blocked. Please consult the documentation.',
    );
  }
  if (req.header('cookie')) {
    throw errors.badRequest(
      'The HTTP Request Header included the "Cookie" key, indicating that this request was made by a Browser. The flow however was initiated as an API request. To prevent potential misuse and mitigate several attack vectors including CSRF, the request has been blocked. Please consult the documentation.',
    );
  }
}

/** The per-flow attempt counter (in `internal`); see `StrategyContext.attempts`. */
const ATTEMPTS = 'attempts';

export interface FlowEngine extends EngineApi {
  /** `GET /self-service/<kind>/browser`. */
  create(kind: FlowKind, req: FlowRequest): Promise<Reply>;
  /** `GET /self-service/<kind>/api`: a native flow (no CSRF cookie or token). */
  createApi(kind: FlowKind, req: FlowRequest): Promise<Reply>;
  /** `GET /self-service/<kind>/flows?id=`. */
  fetch(kind: FlowKind, req: FlowRequest): Promise<Reply>;
  /** `POST /self-service/<kind>?flow=`. */
  submit(kind: FlowKind, req: FlowRequest): Promise<Reply>;
  /** A strategy's extra endpoint (e.g. an identity provider's callback) for a flow of `kind`. */
  callback(kind: FlowKind, cb: StrategyCallback, input: CallbackInput, req: FlowRequest): Promise<Reply>;
  registry: Registry;
}

/**
 * The one self-service flow engine. Per request it loads the flow, checks expiry (a dead flow is
 * replaced by a new one carrying a message), decodes the body, checks CSRF, picks the strategy by
 * `method`, keeps the attempt counter, persists messages, runs the success in one transaction, and
 * returns a `Reply` for the responder. What differs between flow kinds is a `FlowKindSpec`; what
 * differs between methods is a `Strategy`.
 */
export function createFlowEngine(
  service: IdentityContext,
  kinds: Record<FlowKind, FlowKindSpec>,
  registry: Registry,
) {
  const uiUrl = (kind: FlowKind, flowId: string) => withQuery(service.config.ui[kind], { flow: flowId });
  const action = (kind: FlowKind, flowId: string) =>
    `${service.config.publicUrl}/self-service/${kind}?flow=${flowId}`;

  async function formFor(
    kind: FlowKind,
    flow: FlowDraft,
    p: { session?: ActiveSession | undefined; identity?: LoadedIdentity | undefined },
  ): Promise<{ nodes: UiNode[]; internal: Record<string, unknown> }> {
    const nctx = { service, session: p.session, identity: p.identity };
    const draft = { ...flow, internal: { ...flow.internal } };
    const chosen = registry[kind].filter((s) => s.accepts?.(draft) ?? true);
    for (const s of chosen) Object.assign(draft.internal, await s.prepare?.(draft, nctx));
    const nodes: UiNode[] = [csrfNode()];
    for (const s of chosen) nodes.push(...(await s.nodes(draft, nctx)));
    return { nodes, internal: draft.internal };
  }

  async function createFlow(
    kind: FlowKind,
    start: FlowStart,
    p: { csrfToken: string; requestUrl: string; type?: 'browser' | 'api' },
  ): Promise<FlowRow> {
    const type = p.type ?? 'browser';
    const draft: FlowDraft = {
      kind,
      state: start.state,
      refresh: start.refresh ?? false,
      requested_aal: start.requestedAal ?? 'aal1',
      internal: start.internal ?? {},
    };
    const formed = await formFor(kind, draft, start);
    const internal = formed.internal;
    // API flows carry no CSRF token (Kratos): their callers hold no cookie to bind it to.
    const nodes =
      type === 'api'
        ? formed.nodes.filter((n) => (n.attributes as { name?: string }).name !== 'csrf_token')
        : formed.nodes;
    return insertFlow(service.db, {
      kind,
      type,
      state: start.state,
      csrfHash: csrfHash(p.csrfToken),
      requestUrl: p.requestUrl,
      returnTo: start.returnTo,
      refresh: draft.refresh,
      requestedAal: draft.requested_aal,
      oauth2LoginChallenge: start.oauth2LoginChallenge ?? null,
      identityId: start.identity?.row.id ?? null,
      ui: (id) => ({
        action: action(kind, id),
        method: 'POST',
        nodes,
        ...(start.messages?.length ? { messages: start.messages } : {}),
      }),
      internal,
      now: service.clock.now(),
      lifespanMs: service.config.flowLifespanMs,
    });
  }

  /** The flow's UI with a freshly masked CSRF token (when the request holds the flow's cookie). */
  function uiFor(flow: FlowRow, req: FlowRequest, csrfToken?: string): UiContainer {
    const ui = flow.ui as UiContainer;
    if (!ui.nodes.some((n) => (n.attributes as { name?: string }).name === 'csrf_token')) return ui;
    const token = csrfToken ?? req.csrf.tokenFor(flow.csrf_hash);
    return setNodeValue(ui, 'csrf_token', token ? maskToken(token) : '');
  }

  const api: EngineApi = { createFlow, formFor, uiFor, uiUrl };

  /** A new flow replaces `flow` (expired, finished, too many attempts): browsers go to it, JSON gets 410. */
  async function replace(
    spec: FlowKindSpec,
    flow: FlowRow,
    req: FlowRequest,
    id: 'self_service_flow_expired' | 'self_service_flow_replaced',
    message: UiText,
  ): Promise<Reply> {
    const now = service.clock.now();
    const api = flow.type === 'api';
    const csrfToken = api ? unusableCsrfToken() : req.csrf.ensure();
    const start = await spec.restart(flow, req, [message]);
    const fresh = await createFlow(spec.kind, start, {
      csrfToken,
      requestUrl: flow.request_url,
      type: flow.type === 'api' ? 'api' : 'browser',
    });
    const expired = id === 'self_service_flow_expired';
    const sinceMs = now.getTime() - flow.expires_at.getTime();
    const reason =
      spec.replacedWording === 'minutes'
        ? `The self-service flow expired ${(sinceMs / 60_000).toFixed(2)} minutes ago, initialize a new one.`
        : expired
          ? `The ${spec.kind} flow has expired. Use the new flow.`
          : `The ${spec.kind} flow can not be used any more. Use the new flow.`;
    const error = new IdentityError(410, {
      id,
      message: expired ? 'self-service flow expired' : 'self-service flow replaced',
      reason,
      extra: {
        use_flow_id: fresh.id,
        ...(expired ? { expired_at: flow.expires_at.toISOString(), since: sinceMs * 1e6 } : {}),
      },
    });
    return { type: 'error', error, browserTo: uiUrl(spec.kind, fresh.id) };
  }

  /** A submit or callback to an expired flow gets a new flow carrying the kind's expiry message. */
  async function replaceIfExpired(spec: FlowKindSpec, flow: FlowRow, req: FlowRequest) {
    const now = service.clock.now();
    if (!isExpired(flow, now)) return undefined;
    const message = spec.expiredMessage(flow.expires_at, now);
    return replace(spec, flow, req, 'self_service_flow_expired', message);
  }

  const attemptsOf = (flow: FlowRow) => Number(flow.internal[ATTEMPTS] ?? 0);

  /** Turns a strategy's outcome into a reply, writing what it asks for. */
  async function settle(
    spec: FlowKindSpec,
    flow: FlowRow,
    outcome: Outcome,
    req: FlowRequest,
  ): Promise<Reply> {
    const now = service.clock.now();
    switch (outcome.type) {
      case 'location_change':
      case 'error':
        return outcome;
      case 'flow_replaced':
        return replace(spec, flow, req, 'self_service_flow_replaced', outcome.message);
      case 'flow_updated': {
        let ui = (outcome.patch?.ui ?? flow.ui) as UiContainer;
        if (outcome.messages) {
          ui = clearMessages(ui);
          for (const [name, value] of Object.entries(outcome.values ?? {}))
            ui = setNodeValue(ui, name, value.slice(0, 320));
          ui = placeMessages(ui, outcome.messages);
        }
        const internal = { ...flow.internal, ...(outcome.patch?.internal ?? {}) };
        if (outcome.countAttempt) internal[ATTEMPTS] = attemptsOf(flow) + 1;
        if (outcome.resetAttempts) internal[ATTEMPTS] = 0;
        const state = outcome.patch?.state ?? flow.state;
        const commit = outcome.commit;
        if (commit) {
          await service.db.transaction().execute(async (trx) => {
            await updateFlow(trx, flow.id, { ui, state, internal }, now);
            await commit(trx);
          });
        } else {
          await updateFlow(service.db, flow.id, { ui, state, internal }, now);
        }
        const updated: FlowRow = { ...flow, ui, state, internal, updated_at: now };
        const shown: FlowRow = outcome.reveal
          ? { ...updated, ui: { ...ui, nodes: [...ui.nodes, ...outcome.reveal] } }
          : updated;
        return {
          type: 'answer',
          status: outcome.status ?? 400,
          body: await spec.render(shown, uiFor(shown, req), service, { req }),
          browserTo: uiUrl(spec.kind, flow.id),
        };
      }
      case 'success': {
        if (outcome.identityId && (await outsideTrustedNetworks(service, outcome.identityId, req.ip))) {
          const message = messages.networkNotTrusted();
          return settle(spec, flow, { type: 'flow_updated', messages: [{ pointer: '#/', message }] }, req);
        }
        const internal = { ...flow.internal, ...(outcome.patch?.internal ?? {}) };
        if (outcome.countAttempt) internal[ATTEMPTS] = attemptsOf(flow) + 1;
        const current: FlowRow = { ...flow, internal };
        try {
          return await spec.finish(
            {
              flow: current,
              outcome,
              req,
              transact: (fn) =>
                service.db.transaction().execute(async (trx) => {
                  await outcome.commit?.(trx);
                  return fn(trx);
                }),
            },
            service,
            api,
          );
        } catch (e) {
          // The commit found, under its lock, that the change no longer fits (rolled back).
          if (e instanceof CommitRefused) return settle(spec, flow, await e.refusal(), req);
          throw e;
        }
      }
    }
  }

  async function strategyContext(
    flow: FlowRow,
    req: FlowRequest,
    strategy?: Strategy,
  ): Promise<StrategyContext> {
    const max = strategy?.maxAttempts ?? Number.POSITIVE_INFINITY;
    const used = attemptsOf(flow);
    return {
      service,
      now: service.clock.now(),
      session: await req.session(),
      client: { ip: req.ip, userAgent: req.userAgent },
      attempts: { used, max, exhausted: used >= max },
    };
  }

  return {
    ...api,
    registry,

    async create(kind, req) {
      const spec = kinds[kind];
      const begun = await spec.begin(req, service);
      if ('reply' in begun) return begun.reply;
      const csrfToken = req.csrf.ensure();
      const flow = await createFlow(kind, begun.start, {
        csrfToken,
        requestUrl: `${service.config.publicUrl}${req.url}`,
      });
      return {
        type: 'answer',
        status: 200,
        body: await spec.render(flow, uiFor(flow, req, csrfToken), service, { req, extra: begun.extra }),
        browserTo: uiUrl(kind, flow.id),
      };
    },

    async createApi(kind, req) {
      const spec = kinds[kind];
      const begun = await spec.begin(req, service);
      if ('reply' in begun) return { ...begun.reply, browserTo: undefined } as Reply;
      const flow = await createFlow(kind, begun.start, {
        csrfToken: unusableCsrfToken(),
        requestUrl: `${service.config.publicUrl}${req.url}`,
        type: 'api',
      });
      return {
        type: 'answer',
        status: 200,
        body: await spec.render(flow, flow.ui as UiContainer, service, { req, extra: begun.extra }),
      };
    },

    async fetch(kind, req) {
      const spec = kinds[kind];
      await spec.beforeFetch?.(req, service);
      const flow = await getFlow(service.db, kind, req.query('id'));
      if (!flow) throw errors.flowNotFound();
      const owner = await spec.owner?.(flow, req, service);
      if (owner) return owner;
      if (flow.type !== 'api' && !req.csrf.matches(flow.csrf_hash)) throw errors.csrf(spec.fetchCsrfReason);
      const access = await spec.access?.(flow, req, service);
      if (access) return access;
      if (isExpired(flow, service.clock.now())) {
        throw new IdentityError(410, {
          ...(spec.fetchExpiredHasId ? { id: 'self_service_flow_expired' } : {}),
          reason: `The ${kind} flow has expired. Redirect the user to the ${kind} flow init endpoint to initialize a new ${kind} flow.`,
          details: {
            redirect_to: `${service.config.publicUrl}/self-service/${kind}/browser`,
            ...(flow.return_to ? { return_to: flow.return_to } : {}),
          },
        });
      }
      const extra = await spec.fetchExtra?.(flow, service);
      const body = await spec.render(flow, uiFor(flow, req), service, { req, extra });
      return { type: 'answer', status: 200, body };
    },

    async submit(kind, req) {
      const spec = kinds[kind];
      const flow = await getFlow(service.db, kind, req.query('flow'));
      if (!flow) throw errors.flowNotFound();
      const owner = await spec.owner?.(flow, req, service);
      if (owner) return owner;
      const expired = await replaceIfExpired(spec, flow, req);
      if (expired) return expired;
      const after = await spec.afterExpiry?.(flow, req, service);
      if (after) return after;

      let body: Record<string, unknown>;
      try {
        body = req.body();
      } catch (e) {
        // A body that does not decode is a 400 with the flow and message 4000001, as Kratos answers.
        if (e instanceof IdentityError && e.status === 400 && !e.init.id) {
          const message = messages.refusalText(e.message);
          return settle(spec, flow, { type: 'flow_updated', messages: [{ pointer: '#/', message }] }, req);
        }
        throw e;
      }
      if (flow.type === 'api') refuseBrowserOnApiFlow(req);
      else if (spec.csrfFirst) req.csrf.verify(flow.csrf_hash, body.csrf_token);
      const closed = spec.closed?.(flow);
      if (closed) return replace(spec, flow, req, 'self_service_flow_replaced', closed);

      const strategy = registry[kind].find((s) => s.method === body.method && (s.accepts?.(flow) ?? true));
      if (!strategy) {
        const message = spec.noStrategy();
        return settle(spec, flow, { type: 'flow_updated', messages: [{ pointer: '#/', message }] }, req);
      }
      if (strategy.browserOnly && flow.type === 'api') {
        const message = messages.apiFlowUnsupported(strategy.method);
        return settle(spec, flow, { type: 'flow_updated', messages: [{ pointer: '#/', message }] }, req);
      }
      if (flow.type !== 'api' && !spec.csrfFirst && (strategy.needsCsrf?.(flow, body) ?? true))
        req.csrf.verify(flow.csrf_hash, body.csrf_token);
      let outcome: Outcome;
      try {
        outcome = await strategy.submit(flow, body, await strategyContext(flow, req, strategy));
      } catch (e) {
        service.metrics.flowSubmitted(kind, flow, strategy.method, errorLabel(e));
        throw e;
      }
      service.metrics.flowSubmitted(kind, flow, strategy.method, outcomeLabel(outcome));
      return settle(spec, flow, outcome, req);
    },

    async callback(kind, cb, input, req) {
      const spec = kinds[kind];
      const flow = await getFlow(service.db, kind, cb.flowId(input));
      if (!flow) throw errors.flowNotFound();
      if (cb.sameBrowser && !req.csrf.matches(flow.csrf_hash)) {
        throw errors.csrf('This sign-in was started in another browser (the flow cookie is missing).');
      }
      const expired = await replaceIfExpired(spec, flow, req);
      if (expired) return expired;
      const strategy = registry[kind].find((s) => s.callbacks?.includes(cb));
      const outcome = await cb.handle(flow, input, await strategyContext(flow, req, strategy));
      return settle(spec, flow, outcome, req);
    },
  } satisfies FlowEngine;
}
