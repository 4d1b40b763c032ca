import type { UiContainer, UiText } from '@ory/client';
import type { Db } from '../../db/db.ts';
import type { FlowRow } from '../../db/schema.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy, StrategyContext } from '../../flows/strategy.ts';
import type { Locale } from '@acme/i18n';
import { recipientLocale } from '../../identities/notices.ts';
import { normalizeEmail } from '../../identities/repo.ts';
import { CODE_SCOPE, admitCodeAttempt } from '../../throttle/code-guard.ts';
import { BUDGET_SCOPE, takeBudget } from '../../throttle/attempts.ts';
import { messages } from '../../ui/messages.ts';
import { emailCodeNodes, enterCodeNodes } from '../../ui/nodes.ts';
import { MAX_CODE_SUBMISSIONS, codeMatches, hashCode, newCode } from './code.ts';

/** What the `code` method does differently in recovery and in verification. */
export interface CodeMethodSpec<Target> {
  /** Whether this submission asks for a code to be (re)sent rather than checking one. */
  isSendRequest(flow: FlowRow, input: Record<string, unknown>): boolean;
  codeLabel(): UiText;
  codeSent(): UiText;
  invalidCode(): UiText;
  /** The owner of an address, if known (unknown addresses get the same answer, but no mail). */
  findAddress(db: Db, email: string): Promise<Target | undefined>;
  /** What the flow remembers besides the code hash after sending. */
  sentInternal(target: Target | undefined, email: string): Record<string, unknown>;
  /** A refusal for this address before anything is looked up (recovery: SSO-enforcing domains). */
  refuseAddress?(email: string, ctx: StrategyContext): Promise<UiText | undefined>;
  /** Runs in the sending transaction before the mail, for a known address. */
  beforeMail?(trx: Db, target: Target, now: Date): Promise<void>;
  renderMail(p: { code: string; appName: string; locale: Locale }): {
    subject: string;
    text: string;
    html: string;
  };
  /** The `internal` key that a correct code acts on. */
  targetKey: string;
  /** The outcome of a correct code for `targetId`. */
  succeed(flow: FlowRow, targetId: string, ctx: StrategyContext): Promise<Outcome>;
}

/**
 * The `code` method: a six-digit code mailed to an address (never revealing whether it is known),
 * then checked. Guessing is bounded by the code guard (`throttle/code-guard.ts`): five wrong codes
 * per flow (never reset by a resend), ten per address per hour across flows, and an IP budget.
 */
export function codeStrategy<Target>(spec: CodeMethodSpec<Target>): Strategy {
  const wantsSend = (flow: FlowRow, input: Record<string, unknown>) =>
    typeof input.email === 'string' && spec.isSendRequest(flow, input);
  return {
    method: 'code',
    group: 'code',
    nodes: () => emailCodeNodes(false),
    needsCsrf: wantsSend,
    maxAttempts: MAX_CODE_SUBMISSIONS,
    async submit(flow, input, ctx) {
      // A flow whose code died (too many wrong codes) stays dead: a resend neither resets its
      // counter nor revives it.
      if (ctx.attempts.exhausted) return { type: 'flow_replaced', message: messages.tooManyAttempts() };
      if (wantsSend(flow, input)) return sendCode(spec, flow, input.email as string, ctx);
      if (flow.state !== 'sent_email')
        return {
          type: 'flow_updated',
          messages: [{ pointer: '#/email', message: messages.required('email') }],
        };
      const target = flow.internal[spec.targetKey];
      const targetId = typeof target === 'string' ? target : null;
      const address = flow.internal.code_address;
      // Wrong codes per address (across flows and resends) and per IP, counted atomically before
      // the code is compared. The flow's own cap is the engine's attempt counter above.
      const attempt = await admitCodeAttempt(ctx.service.db, {
        flowId: flow.id,
        flowKey: 'code_guard_attempts',
        subject: typeof address === 'string' ? address : targetId,
        subjectScope: CODE_SCOPE.address,
        ip: ctx.client.ip,
        now: ctx.now,
        limits: { ...ctx.service.config.codeLimits, perFlow: Number.POSITIVE_INFINITY },
      });
      if (attempt.refused)
        return {
          type: 'flow_updated',
          messages: [
            {
              pointer: '#/',
              // The IP budget is shared by everyone behind one address (an office's NAT): say so.
              message:
                attempt.refused === 'ip'
                  ? messages.codeNetworkLocked(attempt.retryAfterSec)
                  : messages.codeLocked(),
            },
          ],
          status: 400,
          countAttempt: true,
        };
      const correct =
        targetId !== null &&
        codeMatches(ctx.service.config.codeSecrets, flow.id, input.code, flow.internal.code_hash);
      await attempt.settle(correct);
      if (!correct || !targetId) {
        return {
          type: 'flow_updated',
          messages: [{ pointer: '#/', message: spec.invalidCode() }],
          status: 200,
          countAttempt: true,
        };
      }
      const outcome = await spec.succeed(flow, targetId, ctx);
      return outcome.type === 'success' ? { ...outcome, countAttempt: true } : outcome;
    },
  };
}

async function sendCode<Target>(
  spec: CodeMethodSpec<Target>,
  flow: FlowRow,
  rawEmail: string,
  ctx: StrategyContext,
): Promise<Outcome> {
  const { service, now } = ctx;
  const email = normalizeEmail(rawEmail);
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 320) {
    const message = messages.invalidEmail(rawEmail, 100);
    return { type: 'flow_updated', messages: [{ pointer: '#/email', message }] };
  }
  const refused = await spec.refuseAddress?.(email, ctx);
  if (refused) return { type: 'flow_updated', messages: [{ pointer: '#/', message: refused }] };
  const target = await spec.findAddress(service.db, email);
  const code = newCode();
  const ui: UiContainer = {
    action: (flow.ui as UiContainer).action,
    method: 'POST',
    nodes: enterCodeNodes({ withCsrf: flow.csrf_hash !== null, email, label: spec.codeLabel() }),
    messages: [spec.codeSent()],
  };
  return {
    type: 'flow_updated',
    status: 200,
    patch: {
      ui,
      state: 'sent_email',
      internal: {
        code_hash: hashCode(service.config.codeSecrets, flow.id, code),
        code_address: email,
        ...spec.sentInternal(target, email),
      },
    },
    async commit(trx) {
      if (!target) return;
      await spec.beforeMail?.(trx, target, now);
      const { sends, windowMs } = service.config.codeMailLimit;
      const mail = await takeBudget(trx, BUDGET_SCOPE.codeMail, email, now, { limit: sends, windowMs });
      if (mail.allowed) {
        // In the owner's language, whatever the browser that asked for the code prefers.
        const locale = await recipientLocale(trx, { to: email });
        await service.mailer.enqueue(
          { to: email, ...spec.renderMail({ code, appName: service.config.appName, locale }) },
          trx,
        );
      }
    },
  };
}
