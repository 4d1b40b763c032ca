import { isSsoSession } from '@acme/identity-contract/sso-session';
import { recordSecurityEvent } from '../../db/security-events.ts';
import { sessionErrors } from '../../errors/identity-error.ts';
import { settingsRefreshUrl } from '../../flows/kinds/settings.ts';
import type { Strategy } from '../../flows/strategy.ts';
import { queueSecurityNotice } from '../../identities/notices.ts';
import { identityEmail } from '../../identities/repo.ts';
import { computeAal } from '../../sessions/aal.ts';
import { hasTotp, isPrivileged } from '../../sessions/policy.ts';
import { messages } from '../../ui/messages.ts';
import { imgNode, inputNode, textNode, totpCodeNode } from '../../ui/nodes.ts';
import { MAX_TOTP_ATTEMPTS, readTotpCode } from './read-code.ts';
import { newTotpSecret, totpQrDataUrl, totpUri, verifyTotp } from './totp.ts';

/**
 * Links TOTP with the flow's secret (the current session gains an aal2 `totp` method at once) or
 * unlinks it. At most 5 wrong codes per flow. The secret is made with the flow and spent by linking.
 * Either change is told to the owner by mail, in the same transaction.
 */
export const totpSettings: Strategy = {
  method: 'totp',
  group: 'totp',
  prepare(flow, { identity }) {
    let secret = typeof flow.internal.totp_secret === 'string' ? flow.internal.totp_secret : '';
    if (identity && !hasTotp(identity) && !secret) secret = newTotpSecret();
    return { totp_secret: secret || null };
  },
  async nodes(flow, { service, identity }) {
    if (!identity || hasTotp(identity)) {
      const label = messages.unlinkTotp();
      return [inputNode({ group: 'totp', name: 'totp_unlink', type: 'submit', value: true, label })];
    }
    const secret = String(flow.internal.totp_secret ?? '');
    const uri = totpUri(secret, service.config.totpIssuer, identityEmail(identity));
    return [
      imgNode('totp', 'totp_qr', await totpQrDataUrl(uri), messages.totpQr()),
      textNode('totp', 'totp_secret_key', messages.totpSecret(secret), messages.totpSecretLabel()),
      totpCodeNode(messages.verifyCode()),
      inputNode({ group: 'totp', name: 'method', type: 'submit', value: 'totp', label: messages.save() }),
    ];
  },
  maxAttempts: MAX_TOTP_ATTEMPTS,
  async submit(flow, input, { service, now, session, attempts, client }) {
    // A session signed in through the organisation's provider gets its assurance from there.
    if (isSsoSession(session?.row.authentication_methods)) {
      const message = messages.ssoNoMfa();
      return { type: 'flow_updated', messages: [{ pointer: '#/', message }] };
    }
    if (!session || !isPrivileged(service, session))
      return { type: 'error', error: sessionErrors.refreshRequired(settingsRefreshUrl(service, flow)) };
    const identity = session.identity;
    const ownerEmail = identityEmail(identity);
    if (input.totp_unlink === true || input.totp_unlink === 'true') {
      return {
        type: 'success',
        async commit(trx) {
          const removed = await trx
            .deleteFrom('identity_credentials')
            .where('identity_id', '=', identity.row.id)
            .where('type', '=', 'totp')
            .executeTakeFirst();
          // Backup codes stand in for the authenticator app: without it they go too.
          await trx
            .deleteFrom('identity_credentials')
            .where('identity_id', '=', identity.row.id)
            .where('type', '=', 'lookup_secret')
            .execute();
          if (Number(removed.numDeletedRows) > 0 && ownerEmail)
            await queueSecurityNotice(service, { to: ownerEmail, kind: 'totp_removed', at: now }, trx);
          if (Number(removed.numDeletedRows) > 0)
            await recordSecurityEvent(trx, service, {
              type: 'two_factor.removed',
              subjectId: identity.row.id,
              client,
              details: { method: 'totp' },
              at: now,
            });
        },
      };
    }
    if (hasTotp(identity)) {
      const message = messages.totpAlreadySet();
      return { type: 'flow_updated', messages: [{ pointer: '#/', message }] };
    }
    const attempt = readTotpCode(attempts, input);
    if ('refused' in attempt) return attempt.refused;
    const secret = String(flow.internal.totp_secret ?? '');
    const step = secret ? verifyTotp(secret, attempt.code, now, undefined) : null;
    if (step === null) {
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/totp_code', message: messages.invalidTotp() }],
        countAttempt: true,
      };
    }
    const methods = [
      ...session.row.authentication_methods,
      { method: 'totp', aal: 'aal2' as const, completed_at: now.toISOString() },
    ];
    return {
      type: 'success',
      // The flow's secret is spent: a new setup needs a new flow (and a new secret).
      patch: { internal: { totp_secret: null } },
      aalRaised: true,
      async commit(trx) {
        await trx
          .insertInto('identity_credentials')
          .values({
            id: crypto.randomUUID(),
            identity_id: identity.row.id,
            type: 'totp',
            config: JSON.stringify({ secret, last_step: step }),
            version: 0,
            created_at: now,
            updated_at: now,
          })
          .execute();
        await trx
          .updateTable('identity_sessions')
          .set({ authentication_methods: JSON.stringify(methods), aal: computeAal(methods), updated_at: now })
          .where('id', '=', session.row.id)
          .execute();
        if (ownerEmail)
          await queueSecurityNotice(service, { to: ownerEmail, kind: 'totp_added', at: now }, trx);
        await recordSecurityEvent(trx, service, {
          type: 'two_factor.added',
          subjectId: identity.row.id,
          client,
          details: { method: 'totp' },
          at: now,
        });
      },
    };
  },
};
