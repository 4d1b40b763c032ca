import type { Outcome } from '../../flows/outcome.ts';
import type { StrategyContext } from '../../flows/strategy.ts';
import { messages } from '../../ui/messages.ts';

/** Wrong TOTP codes a flow accepts (login and linking). */
export const MAX_TOTP_ATTEMPTS = 5;

/** Checked first on every TOTP code submission: the flow's attempt cap, then a non-empty `totp_code`. */
export function readTotpCode(
  attempts: StrategyContext['attempts'],
  input: Record<string, unknown>,
): { refused: Outcome } | { code: string } {
  if (attempts.exhausted)
    return {
      refused: { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.tooManyAttempts() }] },
    };
  const code = typeof input.totp_code === 'string' ? input.totp_code.trim() : '';
  if (!code)
    return {
      refused: {
        type: 'flow_updated',
        messages: [{ pointer: '#/totp_code', message: messages.required('totp_code') }],
      },
    };
  return { code };
}
