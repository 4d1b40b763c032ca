import type { UiContainer, UiNode, UiText } from '@ory/client';
import type { Db } from '../db/db.ts';
import type { IdentityError } from '../errors/identity-error.ts';
import type { FieldMessage } from '../ui/nodes.ts';

/** Changes to a flow's stored state that an outcome asks for (merged into the row by the engine). */
interface FlowPatch {
  ui?: UiContainer;
  state?: string;
  /** Merged into `internal` (keys set to null are kept as null). */
  internal?: Record<string, unknown>;
}

/**
 * What a strategy's `submit` decided. The engine finishes it for the flow kind (a session, a saved
 * form, a new flow) and the responder turns the result into HTTP.
 */
export type Outcome =
  /**
   * The flow stays open. `messages` replace the form's messages (a JSON pointer naming a node puts the
   * message on that node); `values` prefill inputs; `patch` may replace the form and state. JSON
   * clients get `status` (400 unless given) with the flow; browsers go back to the flow's page.
   */
  | {
      type: 'flow_updated';
      messages?: FieldMessage[];
      values?: Record<string, string>;
      patch?: FlowPatch;
      status?: 200 | 400;
      /** Counts one attempt on the flow's attempt counter (see `attempts` on the strategy). */
      countAttempt?: boolean;
      /** Starts the attempt counter again (a new code was sent). */
      resetAttempts?: boolean;
      /** Runs in the transaction that writes the flow (e.g. queueing the mail with the code it stores). */
      commit?: (trx: Db) => Promise<void>;
      /**
       * Nodes shown in this answer only and never stored with the flow (new backup codes: shown
       * once, kept nowhere in plain text).
       */
      reveal?: UiNode[];
    }
  /**
   * The method succeeded. `identityId` is who proved who they are (login, recovery); `method` the
   * session's authentication method when one is issued. `commit` runs inside the engine's transaction,
   * together with the flow's own writes and any new session.
   */
  | {
      type: 'success';
      identityId?: string;
      method?: string;
      /** The identity provider behind `method` (oidc), recorded on the session's method entry. */
      provider?: string;
      /** The assurance `method` reached this time, when it depends on the proof (a passkey with UV: aal2). */
      aal?: 'aal1' | 'aal2';
      patch?: FlowPatch;
      commit?: (trx: Db) => Promise<void>;
      countAttempt?: boolean;
      /** The caller's session reached a higher assurance level: its browser token is replaced. */
      aalRaised?: boolean;
    }
  /**
   * The browser has to go elsewhere (the second factor, an OAuth2 consent, an external identity
   * provider): 303 for browser forms, 422 `browser_location_change_required` for JSON clients.
   */
  | { type: 'location_change'; to: string }
  /**
   * This flow can not go on (too many attempts): a new flow carrying `message` replaces it. Browsers
   * go to the new flow; JSON clients get 410 `self_service_flow_replaced` with `use_flow_id`.
   */
  | { type: 'flow_replaced'; message: UiText }
  /** A Kratos error envelope; browsers go to `browserTo` when set, else to the error page. */
  | { type: 'error'; error: IdentityError; browserTo?: string };

/**
 * Thrown by a success outcome's `commit` when what the strategy checked before no longer holds once
 * the rows are locked (a cap that parallel requests reached first): the transaction rolls back, so
 * nothing of the success is written, and the engine answers the outcome `refusal` makes instead.
 */
export class CommitRefused extends Error {
  readonly refusal: () => Promise<Outcome>;
  constructor(refusal: () => Promise<Outcome>) {
    super('The change was refused once its rows were locked.');
    this.refusal = refusal;
  }
}

/**
 * What the responder writes (the only place that looks at `Accept`):
 * - `answer`: JSON clients get `status` and `body`; browsers a 303 to `browserTo` (without it, JSON for all).
 * - `location_change`: browsers a 303 to `to`; JSON clients 422 `browser_location_change_required`.
 * - `error`: JSON clients the envelope; browsers a 303 to `browserTo`, or to the error page.
 */
export type Reply =
  | { type: 'answer'; status: number; body?: unknown; browserTo?: string }
  | { type: 'location_change'; to: string }
  | { type: 'error'; error: IdentityError; browserTo?: string };
