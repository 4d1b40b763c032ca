import { recordSecurityEvent } from '../../db/security-events.ts';
import { settingsRefreshUrl } from '../../flows/kinds/settings.ts';
import type { Strategy } from '../../flows/strategy.ts';
import { sessionErrors } from '../../errors/identity-error.ts';
import { queueSecurityNotice } from '../../identities/notices.ts';
import { identityEmail, normalizeEmail, ssoSubject, upsertCredential } from '../../identities/repo.ts';
import { ssoRefusalFor } from '../oidc/enforcement.ts';
import { prepareSsoManaged, ssoManaged } from '../oidc/sso-managed.ts';
import { checkPasswordPolicy } from '../../password/policy.ts';
import { isPrivileged } from '../../sessions/policy.ts';
import { revokeOtherSessions } from '../../sessions/repo.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { resetLogin } from '../../throttle/attempts.ts';
import { messages } from '../../ui/messages.ts';
import { inputNode, passwordNode } from '../../ui/nodes.ts';

/**
 * Sets or changes the password (privileged session required; server-side policy on the `password`
 * node). The change ends every other session of the identity in the same transaction, so a session
 * taken by whoever knew the old password ends with it; the session making the change stays. The
 * owner is told by mail. A member of an organisation that enforces SSO is offered no password.
 */
export const passwordSettings: Strategy = {
  method: 'password',
  group: 'password',
  prepare: prepareSsoManaged,
  nodes: (flow) =>
    ssoManaged(flow)
      ? []
      : [
          passwordNode('new-password'),
          inputNode({
            group: 'password',
            name: 'method',
            type: 'submit',
            value: 'password',
            label: messages.save(),
          }),
        ],
  async submit(flow, input, { service, now, session, client }) {
    if (!session || !isPrivileged(service, session))
      return { type: 'error', error: sessionErrors.refreshRequired(settingsRefreshUrl(service, flow)) };
    const { password } = input;
    if (typeof password !== 'string' || password === '')
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/password', message: messages.required('password') }],
      };
    // A member of an organisation that enforces SSO gets no password: it would sign in without the
    // organisation's provider (issue 31, item 4). Its break-glass admin may set one.
    const sso = await ssoRefusalFor(service, ssoSubject(session.identity));
    if (sso) return { type: 'flow_updated', messages: [{ pointer: '#/password', message: sso }] };
    const email = normalizeEmail(identityEmail(session.identity));
    const problem = checkPasswordPolicy(password, email);
    if (problem) return { type: 'flow_updated', messages: [{ pointer: '#/password', message: problem }] };
    const hashed = await service.passwords.hash(password);
    const identityId = session.identity.row.id;
    const keepSessionId = session.row.id;
    return {
      type: 'success',
      async commit(trx) {
        await upsertCredential(trx, identityId, 'password', { hashed_password: hashed }, [email], now);
        await resetLogin(trx, normalizeIdentifier(email));
        await revokeOtherSessions(trx, identityId, keepSessionId, now);
        await queueSecurityNotice(service, { to: email, kind: 'password_changed', at: now }, trx);
        await recordSecurityEvent(trx, service, {
          type: 'password.changed',
          subjectId: identityId,
          client,
          at: now,
        });
      },
    };
  },
};
