import type { UiNode } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import type { FlowKind } from '../db/flows.ts';
import type { FlowRow } from '../db/schema.ts';
import type { LoadedIdentity } from '../identities/repo.ts';
import type { ActiveSession } from '../sessions/repo.ts';
import type { Outcome } from './outcome.ts';

/** The parts of a flow a strategy may read when drawing its nodes (the row may not exist yet). */
export type FlowDraft = Pick<FlowRow, 'kind' | 'state' | 'refresh' | 'requested_aal' | 'internal'>;

/** What a strategy gets besides the flow and the submitted fields. It never sees the HTTP request. */
export interface StrategyContext {
  service: IdentityContext;
  /** The request's time (one clock reading per request). */
  now: Date;
  /** The caller's current session, if any. */
  session: ActiveSession | undefined;
  client: { ip: string; userAgent: string };
  /**
   * The flow's attempt counter, owned by the engine: `used` so far, the strategy's `max`, and
   * `exhausted` once `used >= max`. A strategy counts an attempt with `countAttempt` on its outcome.
   */
  attempts: { used: number; max: number; exhausted: boolean };
}

/** What a strategy gets when it prepares a flow or draws its nodes. */
export interface NodeContext {
  service: IdentityContext;
  session: ActiveSession | undefined;
  /** The identity the flow is for (settings flows). */
  identity: LoadedIdentity | undefined;
}

/** Input of a strategy's extra endpoint (e.g. an identity provider's callback). */
export interface CallbackInput {
  query: Record<string, string>;
  params: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * An extra endpoint a method needs (an OIDC callback). The engine mounts it on the public API, loads
 * the flow `flowId` names, checks expiry, and answers the outcome like a submit.
 */
export interface StrategyCallback {
  method: 'GET' | 'POST';
  /** Fastify route path, e.g. `/self-service/methods/oidc/callback/:provider`. */
  path: string;
  flowId(input: CallbackInput): string | undefined;
  /**
   * The callback must come from the browser that started the flow (its CSRF cookie is bound to the
   * flow), as after a round trip through an identity provider: otherwise 403, before `handle`.
   */
  sameBrowser?: boolean;
  /** The route's body limit, when it differs from the public API's (a SAML ACS carries a signed XML document). */
  bodyLimit?: (config: IdentityContext['config']) => number;
  handle(flow: FlowRow, input: CallbackInput, ctx: StrategyContext): Promise<Outcome>;
}

/**
 * One sign-in or self-service method for one flow kind (Kratos's "strategy"): the nodes it adds to a
 * new flow and what a submit with `method: <method>` does. Strategies are listed per flow kind in the
 * registry (`registry.ts`); which are enabled is configuration.
 */
export interface Strategy {
  /** The `method` value a submit names. */
  method: string;
  /** The UI node group of its nodes. */
  group: string;
  /** Whether this method applies to a flow (login: password on aal1 flows, totp on aal2). Default: yes. */
  accepts?(flow: FlowDraft): boolean;
  /** State a new (or rebuilt) flow keeps for this method, merged into `internal` before `nodes`. */
  prepare?(flow: FlowDraft, ctx: NodeContext): Record<string, unknown> | Promise<Record<string, unknown>>;
  nodes(flow: FlowDraft, ctx: NodeContext): UiNode[] | Promise<UiNode[]>;
  /**
   * For flow kinds that check CSRF after choosing the method (verification): whether this submission
   * needs the check. Default: yes.
   */
  needsCsrf?(flow: FlowRow, input: Record<string, unknown>): boolean;
  /** The per-flow attempt cap this method counts against. */
  maxAttempts?: number;
  submit(flow: FlowRow, input: Record<string, unknown>, ctx: StrategyContext): Promise<Outcome>;
  /** Extra endpoints (a redirecting method's callback). */
  callbacks?: StrategyCallback[];
  /** Needs a browser (a redirect to an identity provider): refused on API flows. */
  browserOnly?: boolean;
}

/** Which strategies each flow kind offers, in node order. */
export type Registry = Record<FlowKind, Strategy[]>;
