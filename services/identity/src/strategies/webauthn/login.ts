import { messages } from '../../ui/messages.ts';
import { keyLogin, ownerOf } from './key-login.ts';

/**
 * A security key as the second factor (Kratos `webauthn`, aal2 flows of a signed-in person who has
 * one): the browser is offered that person's keys only. A verified answer gives aal2.
 */
export const webauthnLogin = keyLogin({
  type: 'webauthn',
  accepts: (flow) => flow.requested_aal === 'aal2',
  triggerLabel: messages.useSecurityKey,
  loginCall: 'oryWebAuthnLogin',
  allowed: async (service, session) => {
    if (!session?.identity.credentials.some((c) => c.type === 'webauthn')) return null;
    return (await ownerOf(service.db, session.row.identity_id, 'webauthn'))?.keys ?? null;
  },
  owner: async (service, _answer, session) =>
    session ? ownerOf(service.db, session.row.identity_id, 'webauthn') : undefined,
  aal: () => 'aal2',
});
