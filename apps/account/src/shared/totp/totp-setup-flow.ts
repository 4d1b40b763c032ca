import { copy } from '../../copy.ts';
import { getConfig } from '../config/env.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';
import { handleFlowError } from '../identity-client/handle-flow-error.ts';
import { createSettingsFlow, getSettingsFlow } from '../identity-client/identity-client.ts';
import { errorMessages, findInput, totpQr } from '../identity-client/nodes.ts';
import type { SettingsFlow } from '../identity-client/types.ts';
import { redirectTo } from '../navigation/history.ts';
import { registry } from '../storage/registry.ts';
import { write } from '../storage/storage.ts';

// TOTP linking through a Kratos settings flow (method totp), outside React. The secret belongs to
// the flow: a new flow means a new secret, hence the "scan again" hint after a failed attempt.

export type TotpSetupStatus = 'loading' | 'form' | 'update' | 'completed' | 'unauthorized' | 'error';

/** The flow of the query, or a new one when there is none or it is unknown or expired. */
export function requestFlow(flowId?: string): Promise<SettingsFlow> {
  const base = getConfig().identityUrl;
  if (!flowId) return createSettingsFlow(base);
  return getSettingsFlow(base, flowId).catch(() => createSettingsFlow(base));
}

/** A flow with a QR code is the form; one that can only unlink is "update your 2FA". */
export function totpStatusOf(flow: SettingsFlow): 'form' | 'update' {
  return totpQr(flow) ? 'form' : findInput(flow, 'totp_unlink') ? 'update' : 'form';
}

/** The form's messages after a failed code, with the "scan again" hint. */
export function scanAgainErrors(flow: SettingsFlow): string[] {
  return [...errorMessages(flow).map((m) => m.text), copy.login.mfaSetup.scanAgain];
}

export interface TotpErrorHandlers {
  show: (flow: SettingsFlow) => void;
  setErrors: (errors: string[]) => void;
  setStatus: (status: TotpSetupStatus) => void;
  setPageError: (message: string) => void;
}

/** Routes a settings-flow failure of the TOTP set-up; `restart` is what an expired flow does. */
export function routeTotpError(error: unknown, restart: () => void, out: TotpErrorHandlers): void {
  const fail = (message: string) => {
    out.setPageError(message);
    out.setStatus('error');
  };
  handleFlowError<SettingsFlow>(error, {
    // session_refresh_required / session_aal2_required: re-authenticate, then resume here.
    redirect: (url) => {
      write(registry.mfaSetupState, { initialised: true });
      redirectTo(url);
    },
    unauthorized: () => out.setStatus('unauthorized'),
    restart: () => restart(),
    rerender: (updated) => {
      out.show(updated);
      out.setErrors(scanAgainErrors(updated));
    },
    home: () => fail(getErrorMessage(error)),
    error: fail,
  });
}
