import { useCallback, useEffect, useRef, useState } from 'react';
import type { AccountConfig } from '../config/env.ts';
import { submitLogin } from '../identity-client/identity-client.ts';
import { csrfToken, inputValue } from '../identity-client/nodes.ts';
import type { LoginFlow } from '../identity-client/types.ts';
import type { FlowSubmit } from '../identity-client/use-flow-submit.ts';
import type { EmailResult } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import { read } from '../storage/storage.ts';
import { getLoginConfig } from '../users-client/users-client.ts';
import { decidePasskeyOffer, type PasskeyOffer } from './decide-passkey-offer.ts';
import { autofillAvailable, getPasskey, isCancelled } from './webauthn-browser.ts';

export interface PasskeySignInInput {
  config: Pick<AccountConfig, 'identityUrl' | 'usersUrl'>;
  /** The Email step is showing. */
  active: boolean;
  flow: LoginFlow | null;
  obtainFlow: (options: { refresh?: boolean }) => Promise<LoginFlow | null>;
  setEmailResult: (result: EmailResult | null) => void;
  finishLogin: (result: unknown) => Promise<void>;
  submitter: FlowSubmit<LoginFlow>;
}

/** The login flow's passkey options (`passkey_challenge`: `{publicKey}` as JSON), or null. */
function passkeyOptionsOf(flow: LoginFlow | null): unknown {
  const raw = flow ? inputValue(flow, 'passkey_challenge') : undefined;
  if (!raw) return null;
  try {
    return (JSON.parse(raw) as { publicKey?: unknown }).publicKey ?? null;
  } catch {
    return null;
  }
}

const inTeams = () => window.top !== window.self || read(registry.isTeams) === true;

/**
 * Submits a passkey's answer to the login flow; once signed in, the email result is set from the
 * session, so the spec's step rules continue from there instead of showing the Email step again.
 */
function usePasskeyCompletion(
  config: PasskeySignInInput['config'],
  setEmailResult: PasskeySignInInput['setEmailResult'],
  finishLogin: PasskeySignInInput['finishLogin'],
) {
  return useCallback(
    async (current: LoginFlow, answer: string) => {
      const result = await submitLogin(config.identityUrl, current.id, {
        method: 'passkey',
        passkey_login: answer,
        csrf_token: csrfToken(current),
      });
      const email = (result.session?.identity?.traits as { email?: unknown } | undefined)?.email;
      if (typeof email === 'string') {
        const found = await getLoginConfig(config.usersUrl, email).catch(() => null);
        setEmailResult({
          email,
          isSSO: found?.sso ?? false,
          isM365: found?.m365 ?? false,
          provider: found?.provider ?? null,
          hasMagic: found?.magic ?? false,
        });
      }
      await finishLogin(result);
    },
    [config.identityUrl, config.usersUrl, setEmailResult, finishLogin],
  );
}

/**
 * "Sign in with a passkey" on the Email step, and the same through the address field's autofill
 * (conditional mediation). The answer goes to the login flow (`method: passkey`) through the flow
 * submitter (`handleFlowError`).
 */
export function usePasskeySignIn(input: PasskeySignInInput) {
  const { config, active, flow, obtainFlow, setEmailResult, finishLogin, submitter } = input;
  const [conditional, setConditional] = useState(false);
  const webauthn = typeof window !== 'undefined' && 'PublicKeyCredential' in window;
  const teams = typeof window !== 'undefined' && inTeams();

  useEffect(() => {
    if (!active || !webauthn || teams) return;
    let live = true;
    void autofillAvailable().then((yes) => live && setConditional(yes));
    return () => {
      live = false;
    };
  }, [active, webauthn, teams]);

  const offer: PasskeyOffer = decidePasskeyOffer({
    inTeams: teams,
    webauthn,
    conditionalMediation: conditional,
    // Without a flow yet, one is made (with its challenge) when the passkey is asked for.
    hasChallenge: flow === null || passkeyOptionsOf(flow) !== null,
  });

  const complete = usePasskeyCompletion(config, setEmailResult, finishLogin);

  // The latest callbacks, so the autofill request is made once per challenge, not once per render.
  const latest = useRef({ submitter, obtainFlow, complete });
  useEffect(() => {
    latest.current = { submitter, obtainFlow, complete };
  });

  /**
   * Asks the browser for a passkey (`autofill`: waits, without blocking the form, for one picked in
   * the address field's suggestions); the answer is submitted through the flow submitter.
   */
  const answering = useRef(false);
  /**
   * The challenge the open autofill request answers: asked again for the same one (the flow the
   * request made arriving in the page), the browser would abort the open request, and a passkey
   * picked meanwhile would be lost.
   */
  const autofillFor = useRef<string | null>(null);
  const ask = useCallback(async (autofill: boolean) => {
    const current = await latest.current.obtainFlow({});
    const options = passkeyOptionsOf(current);
    if (!current || !options) return;
    const challenge = inputValue(current, 'passkey_challenge') ?? null;
    if (autofill && challenge === autofillFor.current) return;
    autofillFor.current = autofill ? challenge : null;
    let answer: string;
    try {
      answer = await getPasskey(options, autofill);
    } catch (error) {
      if (autofill && autofillFor.current === challenge) autofillFor.current = null;
      // The autofill request is the page's, not the person's: when the browser refuses it (a
      // browser that offers autofill but cannot serve it, as Chromium's headless shell says:
      // "Resident credentials … are not supported"), nothing was asked of them, so nothing is shown.
      if (!autofill && !isCancelled(error)) latest.current.submitter.fail(error);
      return;
    }
    if (autofill && autofillFor.current === challenge) autofillFor.current = null;
    // One answer at a time: a second (an autofill racing the button) would sign in twice.
    if (answering.current) return;
    answering.current = true;
    try {
      await latest.current.submitter.submit(() => latest.current.complete(current, answer));
    } finally {
      answering.current = false;
    }
  }, []);

  const challenge = flow ? inputValue(flow, 'passkey_challenge') : null;
  useEffect(() => {
    if (active && offer.autofill) void ask(true);
  }, [active, offer.autofill, challenge, ask]);

  return {
    offer,
    available: webauthn && !teams,
    /** The current flow carries a passkey challenge (a refresh flow: only for a person with one). */
    hasChallenge: passkeyOptionsOf(flow) !== null,
    signIn: () => ask(false),
    formErrors: submitter.formErrors,
  };
}
