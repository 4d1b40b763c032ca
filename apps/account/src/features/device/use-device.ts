import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig, m365SignInAvailable } from '../../shared/config/env.ts';
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
  postM365DeviceConsent,
  postM365DeviceLogin,
  type DeviceConsent,
} from '../../shared/users-client/users-client.ts';
import { hasValidM365Token } from '../../shared/oauth2/m365-token.ts';
import {
  decideDeviceCodeRefusal,
  decideDeviceLogin,
  formatUserCode,
  selectDeviceStep,
  type DeviceSearch,
} from './select-device-step.ts';

const errorCodeOf = (error: unknown) =>
  error instanceof HttpError ? (error.body as { errorCode?: unknown } | null)?.errorCode : undefined;

/**
 * A device client's login request: accepted with this application's Microsoft 365 sign-in, else
 * handed to the login page (which comes back with it, see selectPendingDeviceLogin).
 */
function useDeviceLogin(loginChallenge: string | null) {
  const config = getConfig();
  useEffect(() => {
    if (!loginChallenge) return;
    const command = decideDeviceLogin({
      m365SignIn: m365SignInAvailable(config),
      hasM365Token: hasValidM365Token(Date.now()),
    });
    if (command.type === 'go-login') {
      write(registry.deviceLoginChallenge, loginChallenge);
      navigate(withQuery(paths.login, { login_challenge: loginChallenge }), { replace: true });
      return;
    }
    remove(registry.deviceLoginChallenge);
    postM365DeviceLogin(config.usersUrl, { loginChallenge, application: config.clientId }).then(
      ({ redirectTo: target }) => redirectTo(target),
      () => navigate(withQuery(paths.device, { error: 'invalid' }), { replace: true }),
    );
  }, [loginChallenge, config]);
}

/** Approves with the Microsoft 365 sign-in the consent names, else with the identity session. */
function approveConsent(
  usersUrl: string,
  consentChallenge: string,
  consent: DeviceConsent | null,
  identitySessionId: string | undefined,
) {
  if (consent?.authenticationMode === 'm365') return postM365DeviceConsent(usersUrl, { consentChallenge });
  if (!identitySessionId) throw new Error(copy.errors.missingSession);
  // The device page showed what the device asks for, and the person approved it.
  return postConsent(usersUrl, { consentChallenge, identitySessionId, decision: 'allow' });
}

/** Deny is answered by the same person as Approve: the identity session, or the Microsoft 365 token. */
function denial(
  consentChallenge: string,
  consent: DeviceConsent | null,
  identitySessionId: string | undefined,
) {
  return consent?.authenticationMode === 'm365' || !identitySessionId
    ? { consentChallenge }
    : { consentChallenge, identitySessionId };
}

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

  useDeviceLogin(step.type === 'login' ? step.loginChallenge : null);

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
      const { redirectTo: target } = approve
        ? await approveConsent(config.usersUrl, consentChallenge, consent, session.session?.id)
        : await postDeviceDeny(config.usersUrl, denial(consentChallenge, consent, session.session?.id));
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
