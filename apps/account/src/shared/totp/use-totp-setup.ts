import { useCallback, useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../config/env.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';
import { handleFlowError } from '../identity-client/handle-flow-error.ts';
import { createSettingsFlow, getSettingsFlow, submitSettings } from '../identity-client/identity-client.ts';
import { csrfToken, errorMessages, findInput, totpQr, totpSecret } from '../identity-client/nodes.ts';
import type { SettingsFlow } from '../identity-client/types.ts';
import { redirectTo } from '../navigation/history.ts';
import { registry } from '../storage/registry.ts';
import { remove, write } from '../storage/storage.ts';

// TOTP linking through a Kratos settings flow (method totp). The secret belongs to the flow: a new
// flow means a new secret, hence the "scan again" hint after a failed attempt.

export type TotpSetupStatus = 'loading' | 'form' | 'update' | 'completed' | 'unauthorized' | 'error';

/** The flow of the query, or a new one when there is none or it is unknown or expired. */
function requestFlow(flowId?: string): Promise<SettingsFlow> {
  const base = getConfig().identityUrl;
  if (!flowId) return createSettingsFlow(base);
  return getSettingsFlow(base, flowId).catch(() => createSettingsFlow(base));
}

export function useTotpSetup(options: { profileFlow?: string; enabled?: boolean } = {}) {
  const enabled = options.enabled ?? true;
  const [flow, setFlow] = useState<SettingsFlow | null>(null);
  const [status, setStatus] = useState<TotpSetupStatus>('loading');
  const [errors, setErrors] = useState<string[]>([]);
  const [pageError, setPageError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const show = useCallback((f: SettingsFlow) => {
    setFlow(f);
    setStatus(totpQr(f) ? 'form' : findInput(f, 'totp_unlink') ? 'update' : 'form');
  }, []);

  const handleError = useCallback(
    (error: unknown, restart: () => void) => {
      const fail = (message: string) => {
        setPageError(message);
        setStatus('error');
      };
      handleFlowError<SettingsFlow>(error, {
        // session_refresh_required / session_aal2_required: re-authenticate, then resume here.
        redirect: (url) => {
          write(registry.mfaSetupState, { initialised: true });
          redirectTo(url);
        },
        unauthorized: () => setStatus('unauthorized'),
        restart: () => restart(),
        rerender: (updated) => {
          show(updated);
          setErrors([...errorMessages(updated).map((m) => m.text), copy.login.mfaSetup.scanAgain]);
        },
        home: () => fail(getErrorMessage(error)),
        error: fail,
      });
    },
    [show],
  );

  /** Shows a loaded flow, or routes the failure to load one. */
  const settle = useCallback(
    (loading: Promise<SettingsFlow>) =>
      loading.then(
        (loaded) => {
          show(loaded);
          write(registry.mfaSetupState, { initialised: true });
        },
        (error: unknown) => handleError(error, () => setStatus('error')),
      ),
    [show, handleError],
  );

  /** A fresh flow (new secret) after a failed or undone setup. */
  const load = useCallback(async () => {
    setStatus('loading');
    await settle(requestFlow());
  }, [settle]);

  useEffect(() => {
    if (enabled) void settle(requestFlow(options.profileFlow));
  }, [enabled, options.profileFlow, settle]);

  const submit = useCallback(
    async (code: string) => {
      if (!flow) return;
      setBusy(true);
      setErrors([]);
      try {
        const result = await submitSettings(getConfig().identityUrl, flow.id, {
          method: 'totp',
          totp_code: code,
          csrf_token: csrfToken(flow),
        });
        if (result.state === 'success') {
          remove(registry.mfaSetupState);
          setStatus('completed');
        } else {
          show(result);
          setErrors([...errorMessages(result).map((m) => m.text), copy.login.mfaSetup.scanAgain]);
        }
      } catch (error) {
        handleError(error, () => {
          setErrors([copy.login.mfaSetup.scanAgain]);
          void load();
        });
      } finally {
        setBusy(false);
      }
    },
    [flow, show, handleError, load],
  );

  /** "Update your 2FA": unlink the current app, then a new flow shows a new QR code. */
  const unlink = useCallback(async () => {
    if (!flow) return;
    setBusy(true);
    try {
      await submitSettings(getConfig().identityUrl, flow.id, {
        method: 'totp',
        totp_unlink: true,
        csrf_token: csrfToken(flow),
      });
      await load();
    } catch (error) {
      handleError(error, () => void load());
    } finally {
      setBusy(false);
    }
  }, [flow, load, handleError]);

  return {
    status,
    qr: flow ? totpQr(flow) : undefined,
    secret: flow ? totpSecret(flow) : undefined,
    errors,
    pageError,
    busy,
    submit,
    unlink,
  };
}
