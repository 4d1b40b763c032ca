import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UiContainer } from '@ory/client';
import { renderVerificationCode } from '@acme/mail';
import type { Ctx } from '../../context.ts';
import type { FlowRow } from '../../db/schema.ts';
import { qs } from '../../http/query.ts';
import { redirect, wantsJson } from '../../http/respond.ts';
import {
  codeFlowUi,
  renderCodeFlow,
  showCodeFlow,
  startCodeFlow,
  submitCodeFlow,
  type CodeFlowSpec,
} from '../../strategies/code/flow.ts';
import { messages } from '../../ui/messages.ts';
import { anchorNode } from '../../ui/nodes.ts';
import { validReturnTo } from '../login/routes.ts';
import { updateFlow } from '../flow-store.ts';

/** Email verification with the `code` method: 1080003 when sent, 4070006 for a wrong code, 1080002 on success. */
const verification: CodeFlowSpec<{ id: string }> = {
  kind: 'verification',
  // A submitted code needs no CSRF token (the emailed code may be opened in another browser); sending does.
  csrfOnEverySubmit: false,
  isSendRequest: (_flow, body) => body.code === undefined,
  noStrategy: 'Could not find a strategy to verify your account with. Did you fill out the form correctly?',
  expired: messages.verificationExpired,
  codeLabel: messages.verificationCode,
  codeSent: messages.verificationCodeSent,
  invalidCode: messages.verificationInvalidCode,
  findAddress: (db, email) =>
    db
      .selectFrom('identity_verifiable_addresses')
      .select(['id'])
      .where('value', '=', email)
      .where('via', '=', 'email')
      .executeTakeFirst(),
  sentInternal: (address) => ({ address_id: address?.id ?? null }),
  beforeMail: async (trx, address, now) => {
    await trx
      .updateTable('identity_verifiable_addresses')
      .set({ status: 'sent', updated_at: now })
      .where('id', '=', address.id)
      .where('verified', '=', false)
      .execute();
  },
  renderMail: renderVerificationCode,
  targetKey: 'address_id',
  succeed: verified,
};

export function registerVerificationRoutes(app: FastifyInstance, ctx: Ctx): void {
  app.get('/self-service/verification/browser', { config: { browserErrors: true } }, async (req, reply) =>
    startCodeFlow(ctx, req, reply, 'verification', validReturnTo(ctx, qs(req.query, 'return_to'))),
  );

  app.get('/self-service/verification/flows', async (req, reply) =>
    showCodeFlow(ctx, req, reply, 'verification'),
  );

  app.post('/self-service/verification', { config: { browserErrors: true } }, async (req, reply) =>
    submitCodeFlow(ctx, req, reply, verification),
  );
}

/** Correct code: the address is verified and the flow shows 1080002 with a link back to `return_to`. */
async function verified(
  ctx: Ctx,
  req: FastifyRequest,
  reply: FastifyReply,
  flow: FlowRow,
  addressId: string,
  submissions: number,
  now: Date,
) {
  const returnTo = flow.return_to ?? ctx.config.defaultReturnUrl;
  const ui: UiContainer = {
    action: returnTo,
    method: 'GET',
    nodes: [anchorNode('code', 'continue', returnTo, messages.continue())],
    messages: [messages.verified()],
  };
  const internal = { ...flow.internal, submissions, code_hash: null };
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('identity_verifiable_addresses')
      .set({ verified: true, status: 'completed', verified_at: now, updated_at: now })
      .where('id', '=', addressId)
      .execute();
    await updateFlow(trx, flow.id, { ui, state: 'passed_challenge', internal }, now);
  });
  if (!wantsJson(req)) return redirect(reply, codeFlowUi(ctx, 'verification', flow.id));
  return reply.send(
    renderCodeFlow(ctx, req, { ...flow, ui, state: 'passed_challenge', internal, updated_at: now }),
  );
}
