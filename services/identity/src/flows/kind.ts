import type { UiContainer, UiNode, UiText } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import type { FlowKind } from '../db/flows.ts';
import type { Db } from '../db/db.ts';
import type { FlowRow } from '../db/schema.ts';
import type { LoadedIdentity } from '../identities/repo.ts';
import type { ActiveSession } from '../sessions/repo.ts';
import type { Outcome, Reply } from './outcome.ts';
import type { FlowDraft } from './strategy.ts';

/**
 * The request as the engine sees it: built from Fastify's request and reply by the routes, so the
 * engine and the flow kinds stay free of HTTP types (and testable with a plain object).
 */
export interface FlowRequest {
  /** Path and query as received (for `request_url`). */
  url: string;
  ip: string;
  userAgent: string;
  query(key: string): string | undefined;
  /** The decoded body (JSON or form); throws the Kratos 400/415 on bad input. */
  body(): Record<string, unknown>;
  /** The caller's session (read once per request). */
  session(): Promise<ActiveSession | undefined>;
  csrf: {
    /** The CSRF cookie's token, setting a new cookie when there is none. */
    ensure(): string;
    /** The CSRF cookie's token when the cookie is bound to a flow with this hash. */
    tokenFor(flowCsrfHash: string | null): string | undefined;
    matches(flowCsrfHash: string | null): boolean;
    /** Throws 403 `security_csrf_violation` unless origin, cookie, flow and submitted token agree. */
    verify(flowCsrfHash: string | null, sent: unknown): void;
  };
  setSessionCookie(token: string, expiresAt: Date): void;
  /** A request header (lower-case name), for the API-flow checks. */
  header(name: string): string | undefined;
  /** Whether the caller's session came from the session cookie (a browser), not a token header. */
  sessionFromCookie(): boolean;
}

/** A new flow as a kind describes it; the engine adds id, CSRF, action, nodes and lifetimes. */
export interface FlowStart {
  returnTo: string | null;
  state: string;
  refresh?: boolean;
  requestedAal?: 'aal1' | 'aal2';
  oauth2LoginChallenge?: string | null;
  identity?: LoadedIdentity;
  session?: ActiveSession;
  messages: UiText[];
  internal?: Record<string, unknown>;
}

/** Runs the success outcome's `commit` and `fn` in one transaction. */
type Transact = <T>(fn: (trx: Db) => Promise<T>) => Promise<T>;

/** What a flow kind hands the engine when a strategy succeeded. */
interface FinishInput {
  flow: FlowRow;
  outcome: Extract<Outcome, { type: 'success' }>;
  req: FlowRequest;
  transact: Transact;
}

/** The engine functions a kind may use (creating another kind's flow, e.g. recovery → settings). */
export interface EngineApi {
  createFlow(
    kind: FlowKind,
    start: FlowStart,
    p: { csrfToken: string; requestUrl: string; type?: 'browser' | 'api' },
  ): Promise<FlowRow>;
  /** The nodes (CSRF first, then each enabled strategy's) and `internal` of a flow's form, drawn anew. */
  formFor(
    kind: FlowKind,
    flow: FlowDraft,
    p: { session: ActiveSession | undefined; identity: LoadedIdentity | undefined },
  ): Promise<{ nodes: UiNode[]; internal: Record<string, unknown> }>;
  /** The flow's UI with a freshly masked CSRF token (when the request holds the flow's cookie). */
  uiFor(flow: FlowRow, req: FlowRequest, csrfToken?: string): UiContainer;
  /** The flow's page in the app. */
  uiUrl(kind: FlowKind, flowId: string): string;
}

/**
 * What makes login, settings, recovery and verification different. Everything else (loading,
 * expiry, CSRF, body decoding, choosing the strategy, attempts, persisting messages, replacing
 * dead flows, answering) is the engine's.
 */
export interface FlowKindSpec {
  kind: FlowKind;
  /** `GET /self-service/<kind>/browser`: query and session checks; a reply instead of a flow, or the flow to start. */
  begin(
    req: FlowRequest,
    service: IdentityContext,
  ): Promise<{ reply: Reply } | { start: FlowStart; extra?: unknown }>;
  /** The same flow again (after expiry or replacement), carrying `messages`. */
  restart(flow: FlowRow, req: FlowRequest, messages: UiText[]): Promise<FlowStart>;
  /** The Kratos flow JSON for `flow` with `ui` (CSRF value filled in); `extra` is what `begin`/`fetchExtra` gave. */
  render(
    flow: FlowRow,
    ui: UiContainer,
    service: IdentityContext,
    opts: { req: FlowRequest; extra?: unknown },
  ): unknown;
  /** Read when `GET /self-service/<kind>/flows` answers (login: the OAuth2 login request). */
  fetchExtra?(flow: FlowRow, service: IdentityContext): Promise<unknown>;
  /** Reason of the 403 when the CSRF cookie does not belong to a fetched flow. */
  fetchCsrfReason: string;
  /** Whether the 410 of an expired fetched flow carries `id: self_service_flow_expired`. */
  fetchExpiredHasId: boolean;
  /** Before the flow is looked up on fetch (settings: a session is required). */
  beforeFetch?(req: FlowRequest, service: IdentityContext): Promise<void>;
  /** Checks on a loaded flow: `owner` before the CSRF check, `access` after (settings: identity, AAL). */
  owner?(flow: FlowRow, req: FlowRequest, service: IdentityContext): Promise<Reply | void>;
  access?(flow: FlowRow, req: FlowRequest, service: IdentityContext): Promise<Reply | void>;
  /** On submit, after the expiry check (login: a session that already satisfies the flow). */
  afterExpiry?(flow: FlowRow, req: FlowRequest, service: IdentityContext): Promise<Reply | void>;
  /** A submit to an expired flow: the message the new flow carries. */
  expiredMessage(expiredAt: Date, now: Date): UiText;
  /** How the 410 for a replaced flow words itself: Kratos's login/settings text, or the code flows'. */
  replacedWording: 'minutes' | 'kind';
  /** Whether CSRF is checked before choosing the method (else per strategy, after). */
  csrfFirst: boolean;
  /** A finished flow that a submit may not reuse: the message of the flow that replaces it. */
  closed?(flow: FlowRow): UiText | undefined;
  /** The 4000001 message when no enabled strategy takes the submitted method. */
  noStrategy(): UiText;
  /** A strategy succeeded: issue the session, save the form, or show success. */
  finish(input: FinishInput, service: IdentityContext, engine: EngineApi): Promise<Reply>;
}
