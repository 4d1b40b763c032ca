import { copy } from '../../copy.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { submitLogin } from '../../shared/identity-client/identity-client.ts';
import { csrfToken, inputValue } from '../../shared/identity-client/nodes.ts';
import { getPasskey, isCancelled } from '../../shared/passkeys/webauthn-browser.ts';
import type { LoginFlow } from '../../shared/identity-client/types.ts';
import type { FlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';

export interface MfaStepInput {
  identityUrl: string;
  obtainFlow: (options: { aal2: true }) => Promise<LoginFlow | null>;
  finishLogin: (result: unknown) => Promise<void>;
  submitter: FlowSubmit<LoginFlow>;
}

/** TOTP toasts, restarts and the signed-in case: a session already there is reloaded. */
export const mfaRoutes = (setFlow: (flow: LoginFlow | null) => void, reloadSession: () => void) => ({
  toast: copy.errors.loginFlow,
  rerender: (flow: LoginFlow) => setFlow(flow),
  home: reloadSession,
  restart: (_reason: string, error: unknown) => {
    setFlow(null);
    showToast(copy.errors.loginFlow(getErrorMessage(error)));
  },
});

/**
 * The 2FA step: the code goes to an aal2 login flow, as method totp (six digits from the app) or
 * lookup_secret (a backup code, in place of the app).
 */
export function useMfaStep(input: MfaStepInput) {
  return (code: string, kind: 'totp' | 'backup' = 'totp'): Promise<void> =>
    input.submitter.submit(async () => {
      const flow = await input.obtainFlow({ aal2: true });
      if (!flow) return;
      const csrf_token = csrfToken(flow);
      const result = await submitLogin(
        input.identityUrl,
        flow.id,
        kind === 'backup'
          ? { method: 'lookup_secret', lookup_secret: code, csrf_token }
          : { method: 'totp', totp_code: code, csrf_token },
      );
      await input.finishLogin(result);
    });
}

/** The aal2 flow's security-key options (`webauthn_challenge`: `{publicKey}` as JSON), or null. */
export function securityKeyOptionsOf(flow: LoginFlow | null): unknown {
  const raw = flow?.requested_aal === 'aal2' ? inputValue(flow, 'webauthn_challenge') : undefined;
  if (!raw) return null;
  try {
    return (JSON.parse(raw) as { publicKey?: unknown }).publicKey ?? null;
  } catch {
    return null;
  }
}

/** The 2FA step's "Use a security key": the browser asks the key, the answer goes to the aal2 flow. */
export function useSecurityKeyStep(input: MfaStepInput) {
  return (): Promise<void> =>
    input.submitter.submit(async () => {
      const flow = await input.obtainFlow({ aal2: true });
      const options = securityKeyOptionsOf(flow);
      if (!flow || !options) return;
      let answer: string;
      try {
        answer = await getPasskey(options);
      } catch (error) {
        if (isCancelled(error)) return;
        throw error;
      }
      const result = await submitLogin(input.identityUrl, flow.id, {
        method: 'webauthn',
        webauthn_login: answer,
        csrf_token: csrfToken(flow),
      });
      await input.finishLogin(result);
    });
}
