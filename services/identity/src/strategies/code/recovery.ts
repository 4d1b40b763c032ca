import { renderRecoveryCode } from '@acme/mail';
import { reclaimUnprovenAccount } from '../../identities/unproven.ts';
import { errors } from '../../errors/identity-error.ts';
import { identityEmail, loadIdentity, normalizeEmail } from '../../identities/repo.ts';
import { normalizeIdentifier } from '../../throttle/backoff.ts';
import { resetLogin } from '../../throttle/attempts.ts';
import { messages } from '../../ui/messages.ts';
import { ssoEnforcedRefusal, ssoRequiredRefusal } from '../oidc/enforcement.ts';
import { codeStrategy } from './strategy.ts';

/**
 * Recovery by code. A correct code verifies the address it was sent to (self-service flows) and lifts
 * a login lockout; the recovery flow kind then signs the user in.
 */
export const recoveryCode = codeStrategy<{ identity_id: string }>({
  // Admin-made flows already hold their code: a submitted address never sends one.
  isSendRequest: (flow) => !flow.internal.admin,
  codeLabel: messages.recoveryCode,
  codeSent: messages.recoveryCodeSent,
  invalidCode: messages.recoveryInvalidCode,
  // No password recovery for an organisation that signs in through its SSO provider only.
  refuseAddress: (email, { service }) => ssoEnforcedRefusal(service, email),
  findAddress: (db, email) =>
    db
      .selectFrom('identity_recovery_addresses')
      .select('identity_id')
      .where('value', '=', email)
      .where('via', '=', 'email')
      .executeTakeFirst(),
  sentInternal: (owner, email) => ({ identity_id: owner?.identity_id ?? null, address: email }),
  renderMail: renderRecoveryCode,
  targetKey: 'identity_id',
  async succeed(flow, identityId, { service, now }) {
    const identity = await loadIdentity(service.db, identityId);
    if (!identity || identity.row.state !== 'active')
      return { type: 'error', error: errors.badRequest('The identity can not be recovered.') };
    // The code proved the mailbox; the person's organisation decides whether a recovery may sign them
    // in (issue 31, item 4): an address moved out of an enforcing organisation's domain gets nothing.
    // Admin-made flows (an invitation's onboarding) are the operator's.
    const sso = flow.internal.admin ? undefined : await ssoRequiredRefusal(service, identityId);
    if (sso) return { type: 'flow_updated', messages: [{ pointer: '#/', message: sso }] };
    const address = flow.internal.address;
    return {
      type: 'success',
      identityId,
      method: 'code_recovery',
      async commit(trx) {
        // The code proves the address: an account someone else started with it, never proven,
        // loses whatever its starter set up before its owner gets in (an invitation's own code is
        // not such a case: the invitation reclaimed the account when it was made).
        if (!flow.internal.admin)
          await reclaimUnprovenAccount(trx, service, { identityId, now, reason: 'recovery' });
        if (!flow.internal.admin && typeof address === 'string') {
          await trx
            .updateTable('identity_verifiable_addresses')
            .set({ verified: true, status: 'completed', verified_at: now, updated_at: now })
            .where('identity_id', '=', identityId)
            .where('value', '=', address)
            .where('verified', '=', false)
            .execute();
        }
        await resetLogin(trx, normalizeIdentifier(normalizeEmail(identityEmail(identity))));
      },
    };
  },
});
