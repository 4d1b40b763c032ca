import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createVerificationFlow,
  getVerificationFlow,
  submitVerification,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken, errorMessages } from '../../shared/identity-client/nodes.ts';
import type { VerificationFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';

export interface VerificationSearch {
  flow?: string;
  code?: string;
}

/** Email verification: flow id from the query, code optionally prefilled; success → login. */
export function useVerification(search: VerificationSearch) {
  const config = getConfig();
  const [flow, setFlow] = useState<VerificationFlow | null>(null);
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);

  const startFresh = useCallback(
    () =>
      createVerificationFlow(config.identityUrl).then(
        (created) => {
          setFlow(created);
          navigate(withQuery(paths.verification, { flow: created.id }), { replace: true });
        },
        (error: unknown) => showToast(copy.errors.verifyingEmail(getErrorMessage(error))),
      ),
    [config.identityUrl],
  );

  // A new flow id in the query (or none): load that flow, or start a fresh one.
  const onFlowParam = useEffectEvent(() => {
    if (flow && flow.id === search.flow) return;
    if (!search.flow) {
      void startFresh();
      return;
    }
    getVerificationFlow(config.identityUrl, search.flow).then(setFlow, () => void startFresh());
  });
  useEffect(() => onFlowParam(), [search.flow]);

  function handle(next: VerificationFlow) {
    if (next.state === 'passed_challenge') {
      navigate(paths.login, { replace: true });
      return;
    }
    setFlow(next);
    setErrors(errorMessages(next).map((m) => m.text));
  }

  async function submit(body: { code?: string; email?: string }) {
    if (!flow) return;
    setBusy(true);
    setErrors([]);
    try {
      handle(
        await submitVerification(config.identityUrl, flow.id, {
          method: 'code',
          ...body,
          csrf_token: csrfToken(flow) || undefined,
        }),
      );
    } catch (error) {
      const toast = (message: string) => showToast(copy.errors.verifyingEmail(message));
      handleFlowError<VerificationFlow>(error, {
        rerender: handle,
        redirect: redirectTo,
        restart: () => void startFresh(),
        home: () => toast(getErrorMessage(error)),
        unauthorized: () => toast(getErrorMessage(error)),
        error: toast,
      });
    } finally {
      setBusy(false);
    }
  }

  return {
    loading: flow === null,
    needsEmail: flow !== null && flow.state === 'choose_method' && !search.code,
    busy,
    errors,
    initialCode: search.code ?? '',
    submitCode: (code: string) => submit({ code }),
    sendCode: (email: string) => submit({ email }),
  };
}
