import type { UiText } from '@ory/client';
import type { IdentityContext } from '../../context.ts';
import { validReturnTo } from '../../http/return-to.ts';
import { messages } from '../../ui/messages.ts';
import type { FlowKindSpec, FlowRequest } from '../kind.ts';
import type { Reply } from '../outcome.ts';
import { baseFlow } from '../render.ts';

/**
 * What recovery and verification share as flow kinds (Kratos v1 states: choose_method → sent_email →
 * passed_challenge): a flow asks for an address, then a code; a finished flow is replaced on reuse.
 * The `code` method itself is a strategy (`strategies/code/`).
 */
export function codeFlowKind(
  kind: 'recovery' | 'verification',
  o: {
    /** Extra checks of `GET …/browser` after `return_to` (recovery: not while signed in). */
    begin?(req: FlowRequest, ctx: IdentityContext, returnTo: string | null): Promise<Reply | undefined>;
    expiredMessage(expiredAt: Date, now: Date): UiText;
    /** The 4000001 message when `method` is not `code`. */
    noStrategy(): UiText;
    csrfFirst: boolean;
    finish: FlowKindSpec['finish'];
  },
): FlowKindSpec {
  return {
    kind,
    async begin(req, ctx) {
      const returnTo = validReturnTo(ctx.config, req.query('return_to'));
      const reply = await o.begin?.(req, ctx, returnTo);
      if (reply) return { reply };
      return { start: { state: 'choose_method', returnTo, messages: [] } };
    },
    restart: async (flow, _req, msgs) => ({
      state: 'choose_method',
      returnTo: flow.return_to,
      messages: msgs,
    }),
    render: (flow, ui) => ({ ...baseFlow(flow, ui), active: 'code' }),
    fetchCsrfReason: 'The anti-CSRF cookie does not belong to this flow.',
    fetchExpiredHasId: false,
    expiredMessage: o.expiredMessage,
    replacedWording: 'kind',
    csrfFirst: o.csrfFirst,
    closed: (flow) => (flow.state === 'passed_challenge' ? messages.alreadyCompleted() : undefined),
    noStrategy: o.noStrategy,
    finish: o.finish,
  };
}
