import { isSsoSession } from '@acme/identity-contract/sso-session';
import { messages } from '../../ui/messages.ts';
import { keySettings } from './key-settings.ts';

/**
 * Security keys as the second factor in settings (Kratos `webauthn`): add, rename, remove. A session
 * signed in through the organisation's provider gets its assurance from there ("SSO users cannot set
 * up MFA", as for TOTP). Adding and removing mail the owner; the first key makes aal2 the identity's
 * highest available level (`sessions/policy.ts`).
 */
export const webauthnSettings = keySettings({
  type: 'webauthn',
  labels: {
    add: messages.addSecurityKey,
    name: messages.securityKeyName,
    remove: messages.removeSecurityKey,
    rename: messages.renameSecurityKey,
  },
  notices: { added: 'security_key_added', removed: 'security_key_removed' },
  secondFactor: true,
  registerCall: 'oryWebAuthnRegistration',
  refusal: async (_service, _identity, session) =>
    isSsoSession(session.row.authentication_methods) ? messages.ssoNoMfa() : undefined,
});
