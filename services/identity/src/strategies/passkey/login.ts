import { identityEmail, loadIdentity } from '../../identities/repo.ts';
import { messages } from '../../ui/messages.ts';
import { ssoRefusalFor } from '../oidc/enforcement.ts';
import { keyLogin, ownerOf } from '../webauthn/key-login.ts';

/**
 * Sign-in with a passkey alone (Kratos `passkey`, aal1 flows): the browser offers any discoverable
 * credential for the relying party, and the answer's user handle names the identity. The session is
 * aal1, or aal2 when the authenticator verified the user (UV): docs/security.md, "Passkeys". An
 * inactive account, or one whose organisation enforces single sign-on, is refused after the answer
 * verified (so nothing is said about an account to someone who does not hold its key); the
 * organisation the person belongs to decides, whatever their address. It also
 * answers the password confirmation (a refresh flow) of a signed-in person who has a passkey.
 */
export const passkeyLogin = keyLogin({
  type: 'passkey',
  accepts: (flow) => flow.requested_aal === 'aal1',
  triggerLabel: messages.passkeyLogin,
  loginCall: 'oryPasskeyLogin',
  // Signed out: any discoverable passkey (none listed, so nothing says whether an account has one).
  // Signed in, an aal1 flow is a password confirmation (refresh): only that person's passkeys are
  // offered, and none when they have none.
  allowed: async (service, session) => {
    if (!session) return [];
    const keys = (await ownerOf(service.db, session.row.identity_id, 'passkey'))?.keys ?? [];
    return keys.length > 0 ? keys : null;
  },
  async owner(service, answer, session) {
    const handle = answer.response.userHandle;
    if (typeof handle !== 'string' || handle.length > 128) return undefined;
    const found = await service.db
      .selectFrom('identity_credential_identifiers')
      .select('identity_id')
      .where('type', '=', 'passkey')
      .where('identifier', '=', handle)
      .executeTakeFirst();
    // A password confirmation is answered by the signed-in person's own passkey, never another's.
    if (!found || (session && found.identity_id !== session.row.identity_id)) return undefined;
    return ownerOf(service.db, found.identity_id, 'passkey');
  },
  async refusal(service, identityId) {
    const identity = await loadIdentity(service.db, identityId);
    if (identity?.row.state !== 'active') return messages.webauthnInvalid();
    return ssoRefusalFor(service, { id: identityId, email: identityEmail(identity) });
  },
  aal: (userVerified) => (userVerified ? 'aal2' : 'aal1'),
});
