import type { Locale } from '@acme/i18n';
import { copy } from '../../copy.ts';
import { currentLocale } from '../../i18n/locale.ts';
import { activatePersonLocale } from '../../shared/session/person-locale.ts';
import type { SettingsBody } from '../../shared/identity-client/identity-client.ts';
import type { SettingsFlow, Traits } from '../../shared/identity-client/types.ts';
import { createPasskey, isCancelled } from '../../shared/passkeys/webauthn-browser.ts';
import { KEY_FIELDS, type KeyType } from './keys/select-keys.ts';
import { handOverNotice, type SettingsNotice, type SettingsSection } from './settings-notice.ts';
import { selectNewBackupCodes } from './select-two-factor.ts';

// The account page's settings-flow actions, as plain functions over one `send`.

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

/** Where a kind of key lives on the page, its words, and its settings fields. */
const keyKind = (type: KeyType) =>
  type === 'passkey'
    ? { section: 'passkeys' as const, text: copy.passkeys }
    : { section: 'twoFactor' as const, text: copy.securityKeys };

/** A key's settings submission, under the field names of its kind. */
function keyBody(
  type: KeyType,
  values: Partial<Record<keyof (typeof KEY_FIELDS)[KeyType], string>>,
  csrf_token: string,
): SettingsBody {
  const fields = KEY_FIELDS[type];
  const named = Object.entries(values).map(([k, v]) => [fields[k as keyof typeof fields], v]);
  return { method: type, ...Object.fromEntries(named), csrf_token } as SettingsBody;
}

export function settingsActions(context: SettingsActionsContext) {
  const { send, traits, reloadSessions, setNewCodes, notify } = context;
  return {
    /**
     * The browser makes the key (its prompt), then the settings flow stores it: a passkey (Passkeys
     * section) or a security key (`webauthn`, the Two-factor section).
     */
    async addKey(type: KeyType, name: string, options: unknown) {
      const { section, text } = keyKind(type);
      let answer: string;
      try {
        answer = await createPasskey(options);
      } catch (error) {
        notify({ section, text: isCancelled(error) ? text.cancelled : text.failed });
        return;
      }
      await send(
        section,
        (csrf_token) => keyBody(type, { register: answer, name }, csrf_token),
        () => text.added,
      );
    },
    renameKey(type: KeyType, id: string, name: string) {
      const { section, text } = keyKind(type);
      return send(
        section,
        (csrf_token) => keyBody(type, { rename: id, name }, csrf_token),
        () => text.renamed,
      );
    },
    removeKey(type: KeyType, id: string) {
      const { section, text } = keyKind(type);
      return send(
        section,
        (csrf_token) => keyBody(type, { remove: id }, csrf_token),
        () => text.removed,
      );
    },
    saveName: (first: string, last: string) =>
      send('profile', (csrf_token) => ({
        method: 'profile',
        traits: { ...traits, name: { ...traits.name, first, last } },
        csrf_token,
      })),
    /**
     * Every trait kept, the locale set; once saved, the page shows the new language at once. A new
     * language renders the page anew, so its notice is handed over and worded in that language.
     */
    saveLocale: (locale: Locale) =>
      send(
        'language',
        (csrf_token) => ({ method: 'profile', traits: { ...traits, locale }, csrf_token }),
        () => {
          const changes = locale !== currentLocale();
          if (changes) handOverNotice(locale, 'language', () => copy.settings.languageSaved);
          void activatePersonLocale(locale);
          return changes ? null : copy.settings.languageSaved;
        },
      ),
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
