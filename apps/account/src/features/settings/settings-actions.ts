import { copy } from '../../copy.ts';
import type { SettingsBody } from '../../shared/identity-client/identity-client.ts';
import type { SettingsFlow, Traits } from '../../shared/identity-client/types.ts';
import { createPasskey, isCancelled } from '../../shared/passkeys/webauthn-browser.ts';
import { selectNewBackupCodes } from './select-two-factor.ts';

// The account page's settings-flow actions, as plain functions over one `send`.

export type SettingsSection =
  'profile' | 'password' | 'twoFactor' | 'passkeys' | 'sessions' | 'linked' | 'apps';

export interface SettingsNotice {
  section: SettingsSection;
  text: string;
}

/** One settings submission; `after` says what to tell the person (null: nothing). */
export type SendSettings = (
  section: Exclude<SettingsSection, 'linked' | 'apps'>,
  body: (csrf: string) => SettingsBody,
  after?: (result: SettingsFlow) => string | null,
) => Promise<void>;

export interface SettingsActionsContext {
  send: SendSettings;
  traits: Traits;
  reloadSessions: () => Promise<void>;
  setNewCodes: (codes: string[]) => void;
  notify: (notice: SettingsNotice) => void;
}

export function settingsActions(context: SettingsActionsContext) {
  const { send, traits, reloadSessions, setNewCodes, notify } = context;
  return {
    /** The browser makes the passkey (its prompt), then the settings flow stores it. */
    async addPasskey(name: string, options: unknown) {
      let answer: string;
      try {
        answer = await createPasskey(options);
      } catch (error) {
        notify({
          section: 'passkeys',
          text: isCancelled(error) ? copy.passkeys.cancelled : copy.passkeys.signInFailed,
        });
        return;
      }
      await send(
        'passkeys',
        (csrf_token) => ({
          method: 'passkey',
          passkey_settings_register: answer,
          passkey_display_name: name,
          csrf_token,
        }),
        () => copy.passkeys.added,
      );
    },
    renamePasskey: (id: string, name: string) =>
      send(
        'passkeys',
        (csrf_token) => ({ method: 'passkey', passkey_rename: id, passkey_display_name: name, csrf_token }),
        () => copy.passkeys.renamed,
      ),
    removePasskey: (id: string) =>
      send(
        'passkeys',
        (csrf_token) => ({ method: 'passkey', passkey_remove: id, csrf_token }),
        () => copy.passkeys.removed,
      ),
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
          void reloadSessions().catch(() => undefined);
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
  };
}
