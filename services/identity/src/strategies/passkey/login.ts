import { identityEmail, loadIdentity } from '../../identities/repo.ts';
import { messages } from '../../ui/messages.ts';
import { ssoEnforcedRefusal } from '../oidc/enforcement.ts';
import { keyLogin, ownerOf } from '../webauthn/key-login.ts';

/**
 * Sign-in with a passkey alone (Kratos `passkey`, aal1 flows): the browser offers any discoverable
 * credential for the relying party, and the answer's user handle names the identity. The session is
 * aal1, or aal2 when the authenticator verified the user (UV): docs/security.md, "Passkeys". An
 * inactive account, or one whose organisation enforces single sign-on, is refused after the answer
 * verified (so nothing is said about an account to someone who does not hold its key).
 */
export const passkeyLogin = keyLogin({
  type: 'passkey',
  accepts: (flow) => flow.requested_aal === 'aal1',
  triggerLabel: messages.passkeyLogin,
  loginCall: 'oryPasskeyLogin',
  allowed: async () => [],
  async owner(service, answer) {
    const handle = answer.response.userHandle;
    if (typeof handle !== 'string' || handle.length > 128) return undefined;
    const found = await service.db
      .selectFrom('identity_credential_identifiers')
      .select('identity_id')
      .where('type', '=', 'passkey')
      .where('identifier', '=', handle)
      .executeTakeFirst();
    return found ? ownerOf(service.db, found.identity_id, 'passkey') : undefined;
  },
  async refusal(service, identityId) {
    const identity = await loadIdentity(service.db, identityId);
    if (identity?.row.state !== 'active') return messages.webauthnInvalid();
    return ssoEnforcedRefusal(service, identityEmail(identity));
  },
  aal: (userVerified) => (userVerified ? 'aal2' : 'aal1'),
});
