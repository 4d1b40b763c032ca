import { useEffect, useState } from 'react';
import { copy } from '../../copy.ts';
import type { AccountConfig } from '../../shared/config/env.ts';
import {
  revokeOtherSessions,
  revokeSession,
  submitSettings,
} from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import type { SettingsFlow, Traits } from '../../shared/identity-client/types.ts';
import { useFlowSubmit } from '../../shared/identity-client/use-flow-submit.ts';
import { revokeConnectedApp } from '../../shared/users-client/users-client.ts';
import { settingsActions, type SendSettings } from './settings-actions.ts';
import {
  clearHandedOverNotice,
  handedOverNotice,
  type SettingsNotice,
  type SettingsSection,
} from './settings-notice.ts';
import { useGitUnlink } from './use-git-unlink.ts';
import { useSettingsData } from './use-settings-data.ts';

export type { SettingsSection };

/**
 * The account page's data and actions, all through the settings flow and the session endpoints of
 * the identity service. Every failure goes through `handleFlowError` (via `useFlowSubmit`): a
 * re-authentication the server asks for ("Password confirmation") is a redirect that comes back
 * here (the flow carries `return_to` to this page), an expired or replaced flow starts a new one.
 */
export function useSettings(config: AccountConfig, enabled: boolean, isGitUser = false) {
  const base = config.identityUrl;
  const data = useSettingsData(config, enabled);
  const { flow, setFlow, load, loadSessions, loadApps } = data;
  // A notice handed over by the page before a change of language (settings-notice.ts).
  const [notice, setNotice] = useState<SettingsNotice | null>(handedOverNotice);
  useEffect(clearHandedOverNotice, []);
  const [newCodes, setNewCodes] = useState<string[]>([]);
  const git = useGitUnlink(config, isGitUser, setNotice);

  const routes = (section: SettingsSection) => ({
    toast: copy.settings.settingsFlow,
    fields: section === 'password' ? (['password'] as const) : ([] as const),
    rerender: (f: SettingsFlow) => setFlow(f),
    restart: () => void load(),
  });
  const profile = useFlowSubmit<SettingsFlow>(routes('profile'));
  const language = useFlowSubmit<SettingsFlow>(routes('language'));
  const password = useFlowSubmit<SettingsFlow>(routes('password'));
  const twoFactor = useFlowSubmit<SettingsFlow>(routes('twoFactor'));
  const passkeys = useFlowSubmit<SettingsFlow>(routes('passkeys'));
  const sessions = useFlowSubmit<SettingsFlow>(routes('sessions'));

  const send: SendSettings = (section, body, after) =>
    ({ profile, language, password, twoFactor, passkeys, sessions })[section].submit(async () => {
      if (!flow) return;
      setNotice(null);
      const result = await submitSettings(base, flow.id, body(csrfToken(flow)));
      setFlow(result);
      const text = after ? after(result) : copy.settings.saved;
      if (text) setNotice({ section, text });
    });
  /** A session-list action: run it, reload the list it changed, then say what happened. */
  const onSessions = (section: SettingsSection, run: () => Promise<string>) =>
    sessions.submit(async () => {
      setNotice(null);
      const text = await run();
      setNotice({ section, text });
    });
  const traits = (flow?.identity.traits ?? {}) as Traits;

  return {
    flow,
    current: data.current,
    others: data.others,
    loadError: data.loadError,
    notice,
    newCodes,
    busy:
      profile.busy ||
      language.busy ||
      password.busy ||
      twoFactor.busy ||
      passkeys.busy ||
      sessions.busy ||
      git.unlinking,
    errors: { profile, language, password, twoFactor, passkeys, sessions },
    traits,
    ...settingsActions({ send, traits, reloadSessions: loadSessions, setNewCodes, notify: setNotice }),
    signOut: (id: string) =>
      onSessions('sessions', async () => {
        await revokeSession(base, id);
        await loadSessions();
        return copy.settings.signedOut;
      }),
    apps: data.apps,
    revokeApp: (clientId: string, name: string) =>
      onSessions('apps', async () => {
        await revokeConnectedApp(config.usersUrl, clientId);
        await loadApps();
        return copy.settings.appRevoked(name);
      }),
    ...git,
    signOutOthers: () =>
      onSessions('sessions', async () => {
        const { count } = await revokeOtherSessions(base);
        await loadSessions();
        return copy.settings.signedOutOthers(count);
      }),
  };
}

export type SettingsModel = ReturnType<typeof useSettings>;
