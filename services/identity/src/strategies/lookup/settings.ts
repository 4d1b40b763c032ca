import { recordSecurityEvent } from '../../db/security-events.ts';
import type { UiContainer, UiNode } from '@ory/client';
import { sessionErrors } from '../../errors/identity-error.ts';
import { settingsRefreshUrl } from '../../flows/kinds/settings.ts';
import type { Outcome } from '../../flows/outcome.ts';
import type { Strategy } from '../../flows/strategy.ts';
import { queueSecurityNotice } from '../../identities/notices.ts';
import { getCredential, identityEmail, type LoadedIdentity } from '../../identities/repo.ts';
import { isPrivileged } from '../../sessions/policy.ts';
import { messages } from '../../ui/messages.ts';
import { inputNode, textNode } from '../../ui/nodes.ts';
import { LOOKUP_CODE_COUNT, hashCode, newCodes, readConfig, remainingCodes, storingSecret } from './codes.ts';

const GROUP = 'lookup_secret';
const hasTotp = (identity: LoadedIdentity) => identity.credentials.some((c) => c.type === 'totp');
const submit = (name: string, label: ReturnType<typeof messages.save>) =>
  inputNode({ group: GROUP, name, type: 'submit', value: true, label });
const flag = (v: unknown) => v === true || v === 'true';
const pendingOf = (internal: Record<string, unknown>): string[] | null =>
  Array.isArray(internal.lookup_pending) ? (internal.lookup_pending as string[]) : null;

/**
 * Backup codes (Kratos `lookup_secret`) in settings, for people with an authenticator app (the codes
 * stand in for it at login). `lookup_secret_regenerate` makes 12 new codes: they are shown once, in
 * that answer only (never stored with the flow), and only their HMACs are kept, in the flow, until
 * `lookup_secret_confirm` makes them the account's set (the old set stops working then, not before).
 * `lookup_secret_reveal` answers how many are left: a stored code can not be shown again.
 * `lookup_secret_disable` removes the set. Every action needs a privileged session; confirm and
 * disable mail the owner in the same transaction.
 */
export const lookupSettings: Strategy = {
  method: 'lookup_secret',
  group: GROUP,
  async nodes(flow, { service, identity }) {
    if (!identity || !hasTotp(identity)) return [];
    const nodes: UiNode[] = [];
    const stored = identity.credentials.some((c) => c.type === 'lookup_secret')
      ? await getCredential(service.db, identity.row.id, 'lookup_secret')
      : undefined;
    if (stored) {
      const left = remainingCodes(readConfig(stored.config));
      nodes.push(
        textNode(GROUP, 'lookup_secret_remaining', messages.lookupRemaining(left, LOOKUP_CODE_COUNT)),
        submit('lookup_secret_reveal', messages.revealLookup()),
      );
    }
    if (pendingOf(flow.internal)) nodes.push(submit('lookup_secret_confirm', messages.confirmLookup()));
    nodes.push(submit('lookup_secret_regenerate', messages.regenerateLookup()));
    if (stored) nodes.push(submit('lookup_secret_disable', messages.disableLookup()));
    return nodes;
  },
  async submit(flow, input, { service, now, session, client }): Promise<Outcome> {
    if (!session || !isPrivileged(service, session))
      return { type: 'error', error: sessionErrors.refreshRequired(settingsRefreshUrl(service, flow)) };
    const identity = session.identity;
    const identityId = identity.row.id;
    if (!hasTotp(identity))
      return { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.noTotp() }] };
    const ownerEmail = identityEmail(identity);
    const secret = storingSecret(service.config.codeSecrets);

    if (flag(input.lookup_secret_regenerate)) {
      const codes = newCodes();
      const pending = codes.map((c) => hashCode(secret, identityId, c));
      const confirm = submit('lookup_secret_confirm', messages.confirmLookup());
      const ui = flow.ui as UiContainer;
      const nodes = (await lookupSettings.nodes(flow, { service, session, identity })).filter(
        (n) => (n.attributes as { name?: string }).name !== 'lookup_secret_confirm',
      );
      return {
        type: 'flow_updated',
        status: 200,
        messages: [],
        patch: {
          internal: { lookup_pending: pending },
          ui: { ...ui, nodes: [...withoutGroup(ui.nodes), ...nodes, confirm] },
        },
        reveal: [textNode(GROUP, 'lookup_secret_codes', messages.lookupList(codes))],
      };
    }
    if (flag(input.lookup_secret_confirm)) {
      const pending = pendingOf(flow.internal);
      if (!pending)
        return { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.noLookup() }] };
      const config = { codes: pending.map((hash) => ({ hash, used_at: null })) };
      return {
        type: 'success',
        patch: { internal: { lookup_pending: null } },
        async commit(trx) {
          await trx
            .deleteFrom('identity_credentials')
            .where('identity_id', '=', identityId)
            .where('type', '=', 'lookup_secret')
            .execute();
          await trx
            .insertInto('identity_credentials')
            .values({
              id: crypto.randomUUID(),
              identity_id: identityId,
              type: 'lookup_secret',
              config: JSON.stringify(config),
              version: 0,
              created_at: now,
              updated_at: now,
            })
            .execute();
          if (ownerEmail)
            await queueSecurityNotice(
              service,
              { to: ownerEmail, kind: 'backup_codes_created', at: now },
              trx,
            );
          await recordSecurityEvent(trx, service, {
            type: 'backup_codes.regenerated',
            subjectId: identityId,
            client,
            details: { count: config.codes.length },
            at: now,
          });
        },
      };
    }
    if (flag(input.lookup_secret_reveal)) {
      const stored = await getCredential(service.db, identityId, 'lookup_secret');
      if (!stored)
        return { type: 'flow_updated', messages: [{ pointer: '#/', message: messages.noLookup() }] };
      const left = remainingCodes(readConfig(stored.config));
      return {
        type: 'flow_updated',
        status: 200,
        messages: [],
        reveal: [textNode(GROUP, 'lookup_secret_codes', messages.lookupRemaining(left, LOOKUP_CODE_COUNT))],
      };
    }
    if (flag(input.lookup_secret_disable)) {
      return {
        type: 'success',
        patch: { internal: { lookup_pending: null } },
        async commit(trx) {
          const removed = await trx
            .deleteFrom('identity_credentials')
            .where('identity_id', '=', identityId)
            .where('type', '=', 'lookup_secret')
            .executeTakeFirst();
          if (Number(removed.numDeletedRows) > 0 && ownerEmail)
            await queueSecurityNotice(
              service,
              { to: ownerEmail, kind: 'backup_codes_removed', at: now },
              trx,
            );
          if (Number(removed.numDeletedRows) > 0)
            await recordSecurityEvent(trx, service, {
              type: 'two_factor.removed',
              subjectId: identityId,
              client,
              details: { method: 'lookup_secret' },
              at: now,
            });
        },
      };
    }
    return {
      type: 'flow_updated',
      messages: [{ pointer: '#/', message: messages.noSettingsStrategy() }],
    };
  },
};

/** The form's nodes without this method's (they are redrawn). */
const withoutGroup = (nodes: UiNode[]) => nodes.filter((n) => n.group !== GROUP);
