import type { UiContainer } from '@ory/client';
import { updateFlow } from '../../db/flows.ts';
import type { FlowRow } from '../../db/schema.ts';
import { messages } from '../../ui/messages.ts';
import { anchorNode } from '../../ui/nodes.ts';
import { codeFlowKind } from './code.ts';

/** Email verification: 1080003 when a code was sent, 4070006 for a wrong code, 1080002 on success. */
export const verificationKind = codeFlowKind('verification', {
  expiredMessage: messages.verificationExpired,
  noStrategy: 'Could not find a strategy to verify your account with. Did you fill out the form correctly?',
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
    const internal = { ...flow.internal, code_hash: null };
    await transact((trx) => updateFlow(trx, flow.id, { ui, state: 'passed_challenge', internal }, now));
    const updated: FlowRow = { ...flow, ui, state: 'passed_challenge', internal, updated_at: now };
    return {
      type: 'answer',
      status: 200,
      body: await verificationKind.render(updated, engine.uiFor(updated, req), ctx, { req }),
      browserTo: engine.uiUrl('verification', flow.id),
    };
  },
});
