import { recordSecurityEvent } from '../../db/security-events.ts';
import { sql } from 'kysely';
import { errors } from '../../errors/identity-error.ts';
import type { Strategy } from '../../flows/strategy.ts';
import { queueSecurityNotice } from '../../identities/notices.ts';
import { identityEmail } from '../../identities/repo.ts';
import { admitSecondFactor } from '../second-factor.ts';
import { messages } from '../../ui/messages.ts';
import { inputNode } from '../../ui/nodes.ts';
import { MAX_TOTP_ATTEMPTS } from '../totp/read-code.ts';
import { findCode, normalizeCode, readConfig, remainingCodes } from './codes.ts';

/**
 * A backup code in place of the authenticator app, on aal2 login flows (its own text field: the
 * codes are not six digits). Admitted exactly like a TOTP code (`strategies/second-factor.ts`: the
 * account's lockout, the per-account and per-IP code budgets) and counted on the flow's attempt
 * counter with the same cap. Each code works once: the use is claimed by a conditional update of the
 * one entry, so parallel submits of one code admit exactly one. A use mails the owner how many are left.
 */
export const lookupLogin: Strategy = {
  method: 'lookup_secret',
  group: 'lookup_secret',
  accepts: (flow) => flow.requested_aal === 'aal2',
  nodes: (_flow, { session }) =>
    session && !session.identity.credentials.some((c) => c.type === 'lookup_secret')
      ? []
      : [
          inputNode({
            group: 'lookup_secret',
            name: 'lookup_secret',
            type: 'text',
            required: true,
            autocomplete: 'off',
            label: messages.lookupLabel(),
          }),
          inputNode({
            group: 'lookup_secret',
            name: 'method',
            type: 'submit',
            value: 'lookup_secret',
            label: messages.useLookup(),
          }),
        ],
  maxAttempts: MAX_TOTP_ATTEMPTS,
  async submit(flow, input, context) {
    const { service, now, session, attempts, client } = context;
    if (!session) return { type: 'error', error: errors.aal1Required() };
    if (attempts.exhausted)
      return { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.tooManyAttempts() }] };
    const raw = typeof input.lookup_secret === 'string' ? input.lookup_secret.trim() : '';
    if (!raw)
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/lookup_secret', message: messages.required('lookup_secret') }],
      };
    const identityId = session.row.identity_id;
    const admission = await admitSecondFactor(service, {
      ...context,
      flow,
      session,
      method: 'lookup_secret',
      missing: messages.noLookup(),
    });
    if ('refused' in admission) return admission.refused;
    const { admitted, credential } = admission;
    const code = normalizeCode(raw);
    const config = readConfig(credential.config);
    const index = code === null ? -1 : findCode(config, service.config.codeSecrets, identityId, code);
    if (index < 0) return admitted.wrong(messages.lookupInvalid());
    const hash = config.codes[index]!.hash;
    // Claims this one entry only while it is unused; a parallel submit of the same code finds it used.
    const claimed = await sql<{ config: unknown }>`update identity_credentials
      set config = jsonb_set(config, ${sql.lit(`{codes,${index},used_at}`)}::text[], to_jsonb(${now.toISOString()}::text)),
        updated_at = ${now}
      where id = ${credential.id}
        and config->'codes'->${sql.lit(index)}->>'hash' = ${hash}
        and config->'codes'->${sql.lit(index)}->>'used_at' is null
      returning config`.execute(service.db);
    const row = claimed.rows[0];
    if (!row) return admitted.wrong(messages.lookupUsed());
    await admitted.right();
    const remaining = remainingCodes(readConfig(row.config));
    const to = identityEmail(session.identity);
    return {
      type: 'success',
      identityId,
      method: 'lookup_secret',
      async commit(trx) {
        if (to) await queueSecurityNotice(service, { to, kind: 'backup_code_used', at: now, remaining }, trx);
        await recordSecurityEvent(trx, service, {
          type: 'backup_code.used',
          subjectId: identityId,
          client,
          details: { remaining },
          at: now,
        });
      },
    };
  },
};
