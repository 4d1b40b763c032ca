import Provider, { type AdapterPayload } from 'oidc-provider';
import type { RawBuilder } from 'kysely';

/**
 * What one token request learned from the database and the user service, kept for the rest of
 * that request only (keyed by its Koa context; nothing survives between requests). The token
 * endpoint reads a code or refresh token, then its grant, then the grant's claims: the adapter
 * fetches all three in one query and the later steps find them here.
 */
export interface StoredConsent {
  access_token: Record<string, unknown>;
  id_token: Record<string, unknown>;
  identitySessionId: string | null;
  subject: string | null;
}

export interface RequestState {
  grants: Map<string, AdapterPayload | null>;
  consents: Map<string, StoredConsent | null>;
  /** Claims read fresh from the user service at this refresh, to store and put in the token. */
  fresh: Map<string, { access_token: Record<string, unknown>; id_token: Record<string, unknown> }>;
  /**
   * Token endpoint only: writes are collected and sent as ONE statement once the response is
   * ready (see `token-writes.ts`). `gate` is the authorization or device code's consumption: the
   * other writes happen only if this request consumed the code.
   */
  deferWrites: boolean;
  gate: RawBuilder<unknown> | undefined;
  /** What the gate consumes ("authorization code", "device code"), for the refusal's description. */
  gateLabel: string | undefined;
  pending: ((cond: RawBuilder<unknown>) => RawBuilder<unknown>)[];
}

const states = new WeakMap<object, RequestState>();

/**
 * The current request's state, created on first use: of `ctx`, or of oidc-provider's
 * async-local context (the same Koa context, inside its routes).
 */
export function requestState(koaCtx?: object): RequestState | undefined {
  const ctx = koaCtx ?? Provider.ctx;
  if (!ctx) return undefined;
  let state = states.get(ctx);
  if (!state) {
    state = {
      grants: new Map(),
      consents: new Map(),
      fresh: new Map(),
      deferWrites: false,
      gate: undefined,
      gateLabel: undefined,
      pending: [],
    };
    states.set(ctx, state);
  }
  return state;
}
