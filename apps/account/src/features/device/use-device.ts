import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { HttpError } from '../../shared/errors/http-error.ts';
import { navigate, redirectTo, replaceDocument } from '../../shared/navigation/history.ts';
import { useSession } from '../../shared/session/use-session.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import {
  getDeviceConsent,
  postConsent,
  postDeviceDeny,
  postDeviceVerify,
  type DeviceConsent,
} from '../../shared/users-client/users-client.ts';
import {
  decideDeviceCodeRefusal,
  formatUserCode,
  selectDeviceStep,
  type DeviceSearch,
} from './select-device-step.ts';

const errorCodeOf = (error: unknown) =>
  error instanceof HttpError ? (error.body as { errorCode?: unknown } | null)?.errorCode : undefined;

/** The device page's state and actions for its current step. */
export function useDevice(search: DeviceSearch) {
  const config = getConfig();
  const step = selectDeviceStep(search);
  const session = useSession({ load: step.type === 'consent' });
  const [errors, setErrors] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const [consent, setConsent] = useState<DeviceConsent | null>(null);
  const initialCode = formatUserCode(read(registry.deviceUserCode) ?? '');
  // The authorization server sends the challenge back to this application's own device page.
  const verifyUrl = `${config.oauth2Url}/oauth2/device/verify?client_id=${encodeURIComponent(config.clientId)}`;

  const fetchChallenge = step.type === 'fetch-challenge';
  const prefill = step.type === 'fetch-challenge' ? step.prefill : null;
  useEffect(() => {
    if (!fetchChallenge) return;
    // The authorization server hands this browser a challenge and sends it back here.
    if (prefill) write(registry.deviceUserCode, prefill);
    replaceDocument(verifyUrl);
  }, [fetchChallenge, prefill, verifyUrl]);

  const consentChallenge = step.type === 'consent' ? step.consentChallenge : null;
  useEffect(() => {
    if (!consentChallenge) return;
    getDeviceConsent(config.usersUrl, consentChallenge).then(setConsent, () =>
      navigate(withQuery(paths.device, { error: 'invalid' }), { replace: true }),
    );
  }, [consentChallenge, config.usersUrl]);

  async function submitCode(code: string) {
    if (step.type !== 'enter-code') return;
    setBusy(true);
    setErrors([]);
    try {
      const { redirectTo: target } = await postDeviceVerify(config.usersUrl, {
        deviceChallenge: step.deviceChallenge,
        userCode: code,
      });
      remove(registry.deviceUserCode);
      redirectTo(target);
    } catch (error) {
      setBusy(false);
      const refusal = decideDeviceCodeRefusal(errorCodeOf(error));
      if (refusal.type === 'restart') {
        write(registry.deviceUserCode, code);
        return replaceDocument(verifyUrl);
      }
      if (refusal.type === 'failed') {
        // An expired or used code is dead: "Start again" must not offer it again.
        remove(registry.deviceUserCode);
        return navigate(withQuery(paths.device, { error: refusal.reason }));
      }
      setErrors([refusal.reason === 'rate-limited' ? copy.device.rateLimited : copy.device.invalidCode]);
    }
  }

  async function decide(approve: boolean) {
    if (!consentChallenge) return;
    setBusy(true);
    setErrors([]);
    try {
      const sessionId = session.session?.id;
      if (approve && !sessionId) throw new Error(copy.errors.missingSession);
      const { redirectTo: target } = approve
        ? await postConsent(config.usersUrl, { consentChallenge, identitySessionId: sessionId! })
        : await postDeviceDeny(config.usersUrl, { consentChallenge });
      redirectTo(target);
    } catch {
      setBusy(false);
      setErrors([copy.errors.consentFlow]);
    }
  }

  return {
    step,
    initialCode,
    consent,
    busy,
    errors,
    sessionLoading: step.type === 'consent' && session.state === 'loading',
    submitCode,
    approve: () => void decide(true),
    deny: () => void decide(false),
  };
}
