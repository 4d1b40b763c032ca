import { useEffect, useState } from 'react';
import type { AccountConfig } from '../config/env.ts';
import type { OAuth2Token } from '../storage/registry.ts';
import { watchValue } from '../storage/watch.ts';
import { copy } from '../../copy.ts';
import { startAuthorizationOrGiveUp } from './start-authorization.ts';
import { obtainToken, readToken, scheduleBackgroundRefresh } from './token-lifecycle.ts';

export interface TokenState {
  /** undefined while it is being checked, null when there is none. */
  token: OAuth2Token | null | undefined;
  /** The token could not be obtained even by a new authorization. */
  error: string | null;
}

/**
 * The token of a page that needs one: a stored token is checked and renewed (rule 1: refresh, then
 * a new authorization, then the full-reauth message) and kept fresh in the background (rule 3).
 */
export function useToken(config: AccountConfig): TokenState {
  const [state, setState] = useState<TokenState>({ token: undefined, error: null });

  useEffect(() => {
    let live = true;
    const checking = readToken() ? obtainToken(config) : Promise.resolve(null);
    void checking.then((outcome) => {
      if (!live) return;
      if (outcome === null) setState({ token: null, error: null });
      else if (outcome.type === 'token') setState({ token: outcome.token, error: null });
      else if (outcome.type === 'failed') setState({ token: null, error: outcome.message });
      // A new authorization: the page stays in progress until the browser leaves for it, or says
      // so when another sign-in's lock keeps it from starting for too long.
      else
        void startAuthorizationOrGiveUp(config).then((started) => {
          if (!started && live) setState({ token: null, error: copy.errors.signInHeld });
        });
    });
    return () => {
      live = false;
    };
  }, [config]);

  // Tabs in step (cookie polling, 300 ms): a logout in another tab removes the token here too, and a
  // token another tab renewed replaces this one.
  useEffect(
    () =>
      watchValue(
        () => readToken()?.accessToken ?? null,
        () => {
          const current = readToken();
          setState({ token: current, error: null });
        },
      ),
    [],
  );

  const token = state.token;
  useEffect(() => {
    if (!token) return;
    return scheduleBackgroundRefresh(config, (renewed) => {
      if (renewed) setState({ token: renewed, error: null });
    });
  }, [token, config]);

  return state;
}
