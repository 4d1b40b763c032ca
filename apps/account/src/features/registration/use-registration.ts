import { useCallback, useEffect, useEffectEvent, useState } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import { getErrorMessage } from '../../shared/errors/get-error-message.ts';
import { errorId, handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createRegistrationFlow,
  getRegistrationFlow,
  submitRegistration,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import type { RegistrationFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { selectAfterRegistration, selectRegistrationView } from './select-registration-view.ts';

export interface RegistrationSearch {
  flow?: string;
}

export interface RegistrationInput {
  email: string;
  firstName: string;
  lastName: string;
  password: string;
}

/**
 * Self sign-up: the registration flow (id in the query), the address typed on the Email step
 * prefilled. On success the address's code is mailed and the verification screen asks for it; the
 * code, entered in this browser, signs the person in, and the login screen continues (the terms are
 * asked before the first token).
 */
export function useRegistration(search: RegistrationSearch) {
  const config = getConfig();
  const [flow, setFlow] = useState<RegistrationFlow | null>(null);
  const [closed, setClosed] = useState(false);
  const [busy, setBusy] = useState(false);
  const [initialEmail] = useState(() => read(registry.emailResult)?.email ?? '');

  const failed = useCallback((error: unknown) => {
    if (errorId(error) === 'self_service_flow_disabled') setClosed(true);
    else if (errorId(error) === 'session_already_available') navigate(paths.login, { replace: true });
    else showToast(copy.errors.registering(getErrorMessage(error)));
  }, []);

  const startFresh = useCallback(
    () =>
      createRegistrationFlow(config.identityUrl).then((created) => {
        setFlow(created);
        navigate(withQuery(paths.registration, { flow: created.id }), { replace: true });
      }, failed),
    [config.identityUrl, failed],
  );

  const onFlowParam = useEffectEvent(() => {
    if (flow && flow.id === search.flow) return;
    if (!search.flow) {
      void startFresh();
      return;
    }
    getRegistrationFlow(config.identityUrl, search.flow).then(setFlow, (error: unknown) =>
      errorId(error) === 'self_service_flow_disabled' ? setClosed(true) : void startFresh(),
    );
  });
  useEffect(() => onFlowParam(), [search.flow]);

  async function submit(input: RegistrationInput) {
    if (!flow || busy) return;
    setBusy(true);
    try {
      const answer = await submitRegistration(config.identityUrl, flow.id, {
        method: 'password',
        traits: { email: input.email, name: { first: input.firstName, last: input.lastName } },
        password: input.password,
        csrf_token: csrfToken(flow),
      });
      // Not signed in yet: the address's code was mailed; verifying it signs in this browser.
      write(registry.emailResult, {
        email: input.email.trim().toLowerCase(),
        isSSO: false,
        isM365: false,
        provider: null,
        selfSignUp: true,
      });
      navigate(selectAfterRegistration(answer, paths), { replace: true });
    } catch (error) {
      handleFlowError<RegistrationFlow>(error, {
        rerender: setFlow,
        redirect: redirectTo,
        restart: () => void startFresh(),
        home: () => navigate(paths.login, { replace: true }),
        error: (message) => showToast(copy.errors.registering(message)),
        overrides: { self_service_flow_disabled: () => setClosed(true) },
      });
    } finally {
      setBusy(false);
    }
  }

  return { view: selectRegistrationView({ closed, flow }), busy, initialEmail, submit };
}
