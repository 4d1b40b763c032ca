import { useCallback, useEffect, useState } from 'react';
import { getConfig } from '../config/env.ts';
import { HttpError } from '../errors/http-error.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';
import { whoami } from '../identity-client/identity-client.ts';
import type { Session } from '../identity-client/types.ts';
import type { SessionFacts, SessionState } from './session-facts.ts';
import { sessionFacts } from './session-facts.ts';

// SPEC §4 "Session loading": starts loading; 401 = no session (no error), 403 = MFA required,
// other errors record the message.

export interface SessionResult {
  state: SessionState;
  session: Session | null;
  facts: SessionFacts | null;
  error: string | null;
  reload: () => Promise<void>;
}

export function useSession(): SessionResult {
  const [result, setResult] = useState<Omit<SessionResult, 'reload'>>({
    state: 'loading',
    session: null,
    facts: null,
    error: null,
  });

  const load = useCallback(async () => {
    try {
      const session = await whoami(getConfig().identityUrl);
      setResult({ state: 'present', session, facts: sessionFacts(session), error: null });
    } catch (error) {
      if (error instanceof HttpError && error.status === 401) {
        setResult({ state: 'none', session: null, facts: null, error: null });
      } else if (error instanceof HttpError && error.status === 403) {
        setResult({ state: 'requires-mfa', session: null, facts: null, error: null });
      } else {
        setResult({ state: 'error', session: null, facts: null, error: getErrorMessage(error) });
      }
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  return { ...result, reload: load };
}
