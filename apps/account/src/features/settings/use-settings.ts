import { useCallback, useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import { paths } from '../../shared/config/paths.ts';
import { handleFlowError } from '../../shared/identity-client/handle-flow-error.ts';
import {
  createSettingsFlow,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  submitSettings,
  whoami,
  type SettingsBody,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import type { Session, SettingsFlow, Traits } from '../../shared/identity-client/types.ts';
import { useFlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { navigate, redirectTo } from '../../shared/navigation/history.ts';
import { showToast } from '../../shared/errors/error-store.ts';
import {
  listConnectedApps,
  revokeConnectedApp,
  unlinkGit,
  type ConnectedApp,
} from '../../shared/users-client/users-client.ts';
import { decideUnlinkEffect } from './decide-unlink-effect.ts';
import { selectNewBackupCodes } from './select-two-factor.ts';

export type SettingsSection = 'profile' | 'password' | 'twoFactor' | 'sessions' | 'linked' | 'apps';

/**
 * The account page's data and actions, all through the settings flow and the session endpoints of
 * the identity service. Every failure goes through `handleFlowError` (via `useFlowSubmit`): a
 * re-authentication the server asks for ("Password confirmation") is a redirect that comes back
 * here (the flow carries `return_to` to this page), an expired or replaced flow starts a new one.
 */
export function useSettings(config: AccountConfig, enabled: boolean, isGitUser = false) {
  const base = config.identityUrl;
  const [flow, setFlow] = useState<SettingsFlow | null>(null);
  const [current, setCurrent] = useState<Session | null>(null);
  const [others, setOthers] = useState<Session[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ section: SettingsSection; text: string } | null>(null);
  const [newCodes, setNewCodes] = useState<string[]>([]);
  const [unlinking, setUnlinking] = useState(false);
  const [apps, setApps] = useState<ConnectedApp[] | null>(null);
  const [gitConnected, setGitConnected] = useState<boolean | null>(null);

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
    const [me, rest] = await Promise.all([whoami(base), listSessions(base)]);
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

  const routes = (section: SettingsSection) => ({
    toast: copy.settings.settingsFlow,
    fields: section === 'password' ? (['password'] as const) : ([] as const),
    rerender: (f: SettingsFlow) => setFlow(f),
    restart: () => void load(),
  });
  const profile = useFlowSubmit<SettingsFlow>(routes('profile'));
  const password = useFlowSubmit<SettingsFlow>(routes('password'));
  const twoFactor = useFlowSubmit<SettingsFlow>(routes('twoFactor'));
  const sessions = useFlowSubmit<SettingsFlow>(routes('sessions'));

  /** One settings submission; `done` says what to tell the person. */
  const send = (
    section: Exclude<SettingsSection, 'linked' | 'apps'>,
    body: (csrf: string) => SettingsBody,
    after?: (result: SettingsFlow) => string | null,
  ) => {
    const submitter = { profile, password, twoFactor, sessions }[section];
    return submitter.submit(async () => {
      if (!flow) return;
      setNotice(null);
      const result = await submitSettings(base, flow.id, body(csrfToken(flow)));
      setFlow(result);
      const text = after ? after(result) : copy.settings.saved;
      if (text) setNotice({ section, text });
    });
  };

  const traits = (flow?.identity.traits ?? {}) as Traits;

  return {
    flow,
    current,
    others,
    loadError,
    notice,
    newCodes,
    busy: profile.busy || password.busy || twoFactor.busy || sessions.busy || unlinking,
    errors: { profile, password, twoFactor, sessions },
    traits,
    saveName: (first: string, last: string) =>
      send('profile', (csrf_token) => ({
        method: 'profile',
        traits: { ...traits, name: { ...traits.name, first, last } },
        csrf_token,
      })),
    changePassword: (value: string) =>
      send(
        'password',
        (csrf_token) => ({ method: 'password', password: value, csrf_token }),
        () => {
          void loadSessions().catch(() => undefined);
          return copy.settings.passwordChanged;
        },
      ),
    resetTotp: () => send('twoFactor', (csrf_token) => ({ method: 'totp', totp_unlink: true, csrf_token })),
    makeBackupCodes: () =>
      send(
        'twoFactor',
        (csrf_token) => ({ method: 'lookup_secret', lookup_secret_regenerate: true, csrf_token }),
        (result) => {
          setNewCodes(selectNewBackupCodes(result));
          return null;
        },
      ),
    confirmBackupCodes: () =>
      send(
        'twoFactor',
        (csrf_token) => ({ method: 'lookup_secret', lookup_secret_confirm: true, csrf_token }),
        () => {
          setNewCodes([]);
          return copy.settings.backupCodesReady;
        },
      ),
    signOut: (id: string) =>
      sessions.submit(async () => {
        setNotice(null);
        await revokeSession(base, id);
        await loadSessions();
        setNotice({ section: 'sessions', text: copy.settings.signedOut });
      }),
    apps,
    revokeApp: (clientId: string, name: string) =>
      sessions.submit(async () => {
        setNotice(null);
        await revokeConnectedApp(config.usersUrl, clientId);
        await loadApps();
        setNotice({ section: 'apps', text: copy.settings.appRevoked(name) });
      }),
    unlinking,
    /** null until an unlink changed it: the session's trait says. */
    gitConnected,
    unlinkGit: async () => {
      setUnlinking(true);
      setNotice(null);
      const returnTo = new URL(paths.settings, window.location.origin).toString();
      const effect = await unlinkGit(config.usersUrl).then(
        () => decideUnlinkEffect({ ok: true }, { isGitUser, identityUrl: base, returnTo }),
        (error: unknown) =>
          decideUnlinkEffect({ ok: false, error }, { isGitUser, identityUrl: base, returnTo }),
      );
      setUnlinking(false);
      switch (effect.type) {
        case 'unlinked':
          setGitConnected(false);
          if (effect.then === 'sign-in') navigate(paths.login, { replace: true });
          else setNotice({ section: 'linked', text: copy.settings.unlinked });
          return;
        case 'reauthenticate':
          redirectTo(effect.to);
          return;
        case 'error':
          showToast(copy.settings.settingsFlow(effect.message));
          return;
      }
    },
    signOutOthers: () =>
      sessions.submit(async () => {
        setNotice(null);
        const { count } = await revokeOtherSessions(base);
        await loadSessions();
        setNotice({ section: 'sessions', text: copy.settings.signedOutOthers(count) });
      }),
  };
}

export type SettingsModel = ReturnType<typeof useSettings>;
