import { randomBytes } from 'node:crypto';
import type { UiContainer } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import { updateFlow } from '../../db/flows.ts';
import type { FlowRow } from '../../db/schema.ts';
import { securityEventInsert } from '../../db/security-events.ts';
import { createSessionLoadingIdentity } from '../../sessions/repo.ts';
import { verificationCode } from '../../strategies/code/verification.ts';
import { messages } from '../../ui/messages.ts';
import { anchorNode } from '../../ui/nodes.ts';
import type { EngineApi, FlowRequest } from '../kind.ts';
import { codeFlowKind } from './code.ts';

/**
 * A sign-in waiting for its address to be proven: a registration, or a password (or passkey) sign-in
 * to an account whose address was never verified. Only the browser that proved `method` gets the
 * session, and only once the code proves this identity's address.
 */
interface PendingSignIn {
  identity_id: string;
  method: string;
}

const pendingSignIn = (flow: FlowRow): PendingSignIn | undefined => {
  const p = flow.internal.sign_in as Partial<PendingSignIn> | null | undefined;
  return typeof p?.identity_id === 'string' && typeof p.method === 'string'
    ? { identity_id: p.identity_id, method: p.method }
    : undefined;
};

/**
 * Email verification: 1080003 when a code was sent, 4070006 for a wrong code, 1080002 on success.
 * A flow that holds a pending sign-in also issues that sign-in's session on success, in the
 * browser that started it (its CSRF cookie), for the identity whose address the code proved.
 */
export const verificationKind = codeFlowKind('verification', {
  expiredMessage: messages.verificationExpired,
  noStrategy: messages.noVerificationStrategy,
  // A submitted code needs no CSRF token (the emailed code may be opened in another browser); sending does.
  csrfFirst: false,
  /** The address is verified (the strategy's commit); the flow shows 1080002 with a link back to `return_to`. */
  async finish({ flow, req, transact }, ctx, engine) {
    const now = ctx.clock.now();
    const returnTo = flow.return_to ?? ctx.config.defaultReturnUrl;
    const ui: UiContainer = {
      action: returnTo,
      method: 'GET',
      nodes: [anchorNode('code', 'continue', returnTo, messages.continue())],
      messages: [messages.verified()],
    };
    const signIn = pendingSignIn(flow);
    const sameBrowser = flow.type === 'browser' && req.csrf.matches(flow.csrf_hash);
    const internal = { ...flow.internal, code_hash: null, sign_in: null };
    const session = await transact(async (trx) => {
      // The pending sign-in is claimed once, by naming its identity on the flow's row (a column no
      // other write of the flow touches): of parallel submits of the right code, one holds it.
      const claimed =
        signIn && sameBrowser
          ? await trx
              .updateTable('identity_flows')
              .set({ identity_id: signIn.identity_id })
              .where('id', '=', flow.id)
              .where('identity_id', 'is', null)
              .executeTakeFirst()
          : undefined;
      await updateFlow(trx, flow.id, { ui, state: 'passed_challenge', internal }, now);
      if (!signIn || Number(claimed?.numUpdatedRows ?? 0) === 0) return undefined;
      const proven = await trx
        .selectFrom('identity_verifiable_addresses')
        .select('id')
        .where('id', '=', String(flow.internal.address_id))
        .where('identity_id', '=', signIn.identity_id)
        .where('verified', '=', true)
        .executeTakeFirst();
      if (!proven) return undefined;
      const identity = await trx
        .selectFrom('identity_identities')
        .select('state')
        .where('id', '=', signIn.identity_id)
        .executeTakeFirst();
      if (identity?.state !== 'active') return undefined;
      const client = { ip: req.ip, userAgent: req.userAgent };
      return createSessionLoadingIdentity(
        trx,
        {
          identityId: signIn.identity_id,
          methods: [{ method: signIn.method, aal: 'aal1', completed_at: now.toISOString() }],
          now,
          lifespanMs: ctx.config.sessionLifespanMs,
          ...client,
        },
        securityEventInsert(trx, ctx, {
          type: 'signin.succeeded',
          subjectId: signIn.identity_id,
          client,
          details: { method: signIn.method, aal: 'aal1', after: 'verification' },
          at: now,
        }),
      );
    });
    if (session) req.setSessionCookie(session.token, session.row.expires_at);
    const updated: FlowRow = { ...flow, ui, state: 'passed_challenge', internal, updated_at: now };
    return {
      type: 'answer',
      status: 200,
      body: await verificationKind.render(updated, engine.uiFor(updated, req), ctx, { req }),
      browserTo: engine.uiUrl('verification', flow.id),
    };
  },
});

/**
 * A verification flow for `email` with its code sent at once (as a submit of `method: code` would),
 * for the `continue_with: show_verification_ui` of a registration or of a sign-in refused until the
 * address is proven. A browser flow remembers the pending sign-in (`signIn`), bound to this browser.
 */
export async function startVerification(
  origin: FlowRow,
  req: FlowRequest,
  p: { email: string; signIn: PendingSignIn },
  ctx: IdentityContext,
  engine: EngineApi,
): Promise<{ id: string; verifiable_address: string; url: string }> {
  const api = origin.type === 'api';
  const flow = await engine.createFlow(
    'verification',
    {
      state: 'choose_method',
      returnTo: origin.return_to,
      messages: [],
      ...(api ? {} : { internal: { sign_in: p.signIn } }),
    },
    {
      csrfToken: api ? randomBytes(32).toString('base64url') : req.csrf.ensure(),
      requestUrl: origin.request_url,
      type: api ? 'api' : 'browser',
    },
  );
  const now = ctx.clock.now();
  const outcome = await verificationCode.submit(
    flow,
    { method: 'code', email: p.email },
    {
      service: ctx,
      now,
      session: undefined,
      client: { ip: req.ip, userAgent: req.userAgent },
      attempts: { used: 0, max: Number.POSITIVE_INFINITY, exhausted: false },
    },
  );
  if (outcome.type === 'flow_updated' && outcome.patch) {
    const { ui, state, internal } = outcome.patch;
    const patch = {
      ...(ui ? { ui } : {}),
      ...(state ? { state } : {}),
      internal: { ...flow.internal, ...internal },
    };
    await ctx.db.transaction().execute(async (trx) => {
      await updateFlow(trx, flow.id, patch, now);
      await outcome.commit?.(trx);
    });
  }
  return { id: flow.id, verifiable_address: p.email, url: engine.uiUrl('verification', flow.id) };
}
