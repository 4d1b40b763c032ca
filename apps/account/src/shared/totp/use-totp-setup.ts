import { useCallback, useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../config/env.ts';
import { submitSettings } from '../identity-client/identity-client.ts';
import { csrfToken, totpQr, totpSecret } from '../identity-client/nodes.ts';
import type { SettingsFlow } from '../identity-client/types.ts';
import { registry } from '../storage/registry.ts';
import { remove, write } from '../storage/storage.ts';
import type { TotpSetupStatus } from './totp-setup-flow.ts';
import { requestFlow, routeTotpError, scanAgainErrors, totpStatusOf } from './totp-setup-flow.ts';

export type { TotpSetupStatus };

/** The TOTP set-up of the 2FA steps: loads its settings flow, submits the code, unlinks the app. */
export function useTotpSetup(options: { profileFlow?: string; enabled?: boolean } = {}) {
  const enabled = options.enabled ?? true;
  const [flow, setFlow] = useState<SettingsFlow | null>(null);
  const [status, setStatus] = useState<TotpSetupStatus>('loading');
  const [errors, setErrors] = useState<string[]>([]);
  const [pageError, setPageError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const show = useCallback((f: SettingsFlow) => {
    setFlow(f);
    setStatus(totpStatusOf(f));
  }, []);
  const handleError = useCallback(
    (error: unknown, restart: () => void) =>
      routeTotpError(error, restart, { show, setErrors, setStatus, setPageError }),
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

  /** One settings submission (method totp) while busy; `restart` is what an expired flow does. */
  const send = async (
    body: { totp_code: string } | { totp_unlink: true },
    done: (result: SettingsFlow) => unknown,
    restart: () => void,
  ) => {
    if (!flow) return;
    setBusy(true);
    if ('totp_code' in body) setErrors([]);
    try {
      const payload = { method: 'totp' as const, ...body, csrf_token: csrfToken(flow) };
      await done(await submitSettings(getConfig().identityUrl, flow.id, payload));
    } catch (error) {
      handleError(error, restart);
    } finally {
      setBusy(false);
    }
  };

  const submitted = (result: SettingsFlow) => {
    if (result.state === 'success') {
      remove(registry.mfaSetupState);
      setStatus('completed');
    } else {
      show(result);
      setErrors(scanAgainErrors(result));
    }
  };
  const submit = (code: string) =>
    send({ totp_code: code }, submitted, () => {
      setErrors([copy.login.mfaSetup.scanAgain]);
      void load();
    });
  /** "Update your 2FA": unlink the current app, then a new flow shows a new QR code. */
  const unlink = () => send({ totp_unlink: true }, load, () => void load());

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
