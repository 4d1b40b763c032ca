import { useCallback, useEffect, useState } from 'react';
import { getConfig } from '../config/env.ts';
import { HttpError } from '../errors/http-error.ts';
import { getErrorMessage } from '../errors/get-error-message.ts';
import { whoami } from '../identity-client/identity-client.ts';
import type { Session } from '../identity-client/types.ts';
import type { SessionFacts, SessionState } from './session-facts.ts';
import { sessionFacts } from './session-facts.ts';
import { activatePersonLocale } from './person-locale.ts';

// Session loading: starts in `loading`; 401 means no session (not an error), 403 means the second
// factor is still owed, any other failure records its message.

export interface SessionResult {
  state: SessionState;
  session: Session | null;
  facts: SessionFacts | null;
  error: string | null;
  /** When the identity service answered (ms); decisions that compare times use it as "now". */
  checkedAt: number;
  reload: () => Promise<void>;
}

type Loaded = Omit<SessionResult, 'reload'>;

async function loadSession(fresh: boolean): Promise<Loaded> {
  try {
    const session = await whoami(getConfig().identityUrl, { fresh });
    // The person's own language (account settings) wins over the browser's, before anything renders.
    await activatePersonLocale(session.identity?.traits?.locale);
    return { state: 'present', session, facts: sessionFacts(session), error: null, checkedAt: Date.now() };
  } catch (error) {
    const base = { session: null, facts: null, checkedAt: Date.now() };
    if (error instanceof HttpError && error.status === 401) return { ...base, state: 'none', error: null };
    if (error instanceof HttpError && error.status === 403)
      return { ...base, state: 'requires-mfa', error: null };
    return { ...base, state: 'error', error: getErrorMessage(error) };
  }
}

/**
 * The current session. With `load: false` nothing is asked and the state stays `loading` (a caller
 * that already knows its answer without the session, such as the guard of a page without a token).
 */
export function useSession({ load = true }: { load?: boolean } = {}): SessionResult {
  const [result, setResult] = useState<Loaded>({
    state: 'loading',
    session: null,
    facts: null,
    error: null,
    checkedAt: 0,
  });

  // A reload follows a change, which must show (identity-client.ts `whoami`).
  const reload = useCallback(() => loadSession(true).then(setResult), []);

  useEffect(() => {
    if (!load) return;
    let live = true;
    void loadSession(false).then((loaded) => {
      if (live) setResult(loaded);
    });
    return () => {
      live = false;
    };
  }, [load]);

  return { ...result, reload };
}
