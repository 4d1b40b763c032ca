import { ssoSubject } from '../../identities/repo.ts';
import { messages } from '../../ui/messages.ts';
import { ssoRefusalFor } from '../oidc/enforcement.ts';
import { prepareSsoManaged, ssoManaged } from '../oidc/sso-managed.ts';
import { keySettings } from '../webauthn/key-settings.ts';

/**
 * Passkeys in settings (Kratos `passkey`): add (a discoverable credential, user verification
 * preferred), rename, remove. People whose organisation enforces single sign-on (decided by the
 * organisation they belong to, not their address; its break-glass admin excepted) can not add one: a
 * passkey signs in without the organisation's provider (they may add a security key, the second
 * factor, instead). Adding and removing mail the owner.
 */
export const passkeySettings = keySettings({
  type: 'passkey',
  labels: {
    add: messages.addPasskey,
    name: messages.passkeyName,
    remove: messages.removePasskey,
    rename: messages.renamePasskey,
  },
  notices: { added: 'passkey_added', removed: 'passkey_removed' },
  registerCall: 'oryPasskeySettingsRegistration',
  refusal: (service, identity) => ssoRefusalFor(service, ssoSubject(identity)),
  prepare: prepareSsoManaged,
  offered: (flow) => !ssoManaged(flow),
});
