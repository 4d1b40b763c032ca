import { useCallback, useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import { createSettingsFlow, listSessions, whoami } from '../../shared/identity-client/identity-client.ts';
import type { Session, SettingsFlow } from '../../shared/identity-client/types.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { listConnectedApps, type ConnectedApp } from '../../shared/users-client/users-client.ts';

/** The account page's data: its settings flow, the sessions and the connected apps, loaded when enabled. */
export function useSettingsData(config: AccountConfig, enabled: boolean) {
  const base = config.identityUrl;
  const [flow, setFlow] = useState<SettingsFlow | null>(null);
  const [current, setCurrent] = useState<Session | null>(null);
  const [others, setOthers] = useState<Session[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [apps, setApps] = useState<ConnectedApp[] | null>(null);

  const fail = useCallback((error: unknown) => {
    handleFlowError(error, {
      rerender: () => undefined,
      restart: () => setLoadError(copy.errors.unknown),
      redirect: redirectTo,
      home: () => navigate(paths.login, { replace: true }),
      unauthorized: () => navigate(paths.login, { replace: true }),
      error: (message) => setLoadError(copy.settings.settingsFlow(message)),
    });
  }, []);

  const loadSessions = useCallback(async () => {
    // Fresh: the page reloads them after its own changes (identity-client.ts `whoami`).
    const [me, rest] = await Promise.all([whoami(base, { fresh: true }), listSessions(base)]);
    setCurrent(me);
    setOthers(rest);
  }, [base]);

  // Connected apps come from the user service; without them the rest of the page still works.
  const loadApps = useCallback(
    () => listConnectedApps(config.usersUrl).then(setApps, () => setApps(null)),
    [config.usersUrl],
  );

  const load = useCallback(() => {
    const returnTo = new URL(paths.settings, window.location.origin).toString();
    return createSettingsFlow(base, returnTo)
      .then((created) => {
        setFlow(created);
        void loadApps();
        return loadSessions();
      })
      .catch(fail);
  }, [base, loadSessions, loadApps, fail]);

  useEffect(() => {
    if (enabled) void load();
  }, [enabled, load]);

  return { flow, setFlow, current, others, loadError, apps, load, loadSessions, loadApps };
}
