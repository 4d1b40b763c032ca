import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { initialPagePath } from '../../shared/config/paths.ts';
import { classifyFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import { submitLogin } from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import type { LoginFlowHandle } from './use-login-flow.ts';
import type { FlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { navigate } from '../../shared/navigation/history.ts';

export interface PasswordStepInput {
  identityUrl: string;
  identifier: string;
  /** Password confirmation: the flow is created with `refresh`. */
  confirmation: boolean;
  loginFlow: LoginFlowHandle;
  finishLogin: (result: unknown) => Promise<void>;
  submitter: FlowSubmit<LoginFlow>;
}

/** Password toasts, restarts and the signed-in case of a password submit. */
export const passwordRoutes = (
  initialPage: AccountConfig['initialPage'],
  setFlow: (flow: LoginFlow | null) => void,
) => ({
  toast: copy.errors.loginFlow,
  fields: ['password'] as const,
  rerender: (flow: LoginFlow) => setFlow(flow),
  home: () => navigate(initialPagePath(initialPage), { replace: true }),
  restart: (_reason: string, error: unknown) => {
    setFlow(null);
    showToast(copy.errors.loginFlow(getErrorMessage(error)));
  },
});

/** The Password step (and the password confirmation): one quiet retry on an expired flow. */
export function usePasswordStep(input: PasswordStepInput) {
  return (password: string): Promise<void> =>
    input.submitter.submit(async () => {
      if (!input.identifier) return;
      const { obtainFlow } = input.loginFlow;
      let current = input.loginFlow.flow;
      for (let attempt = 1; ; attempt++) {
        // The retry asks for a fresh flow: this closure's `flow` is still the refused one.
        current ??= await obtainFlow({ refresh: input.confirmation, fresh: attempt > 1 });
        if (!current) return;
        try {
          const result = await submitLogin(input.identityUrl, current.id, {
            method: 'password',
            identifier: input.identifier,
            password,
            csrf_token: csrfToken(current),
          });
          await input.finishLogin(result);
          return;
        } catch (error) {
          // One quiet retry when the flow expired or its CSRF check failed: a new flow, same input.
          // The refused flow stays in state until the new one replaces it: clearing it here would let
          // the page's eager load create a second flow beside this one, and in a browser without the
          // anti-CSRF cookie the two set different cookies, so the retry could be refused again.
          if (attempt === 1 && classifyFlowError(error).type === 'restart') {
            current = null;
            continue;
          }
          throw error;
        }
      }
    });
}
