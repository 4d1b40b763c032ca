import type { UiContainer } from '@ory/client';
import type { FlowDraft, NodeContext } from '../../flows/strategy.ts';
import { ssoSubject } from '../../identities/repo.ts';
import { messages } from '../../ui/messages.ts';
import { ssoRefusalFor } from './enforcement.ts';

/**
 * Issue 31, item 4, as the settings form shows it: a member of an organisation that enforces single
 * sign-on (its break-glass admin excepted) is not offered what a settings submit would refuse them,
 * a new address, a password or a passkey, and the flow says why (message 4010093). Decided once, when
 * the flow's form is first drawn, and kept in its `internal`, so the nodes and the message agree for
 * the flow's life; every submit still asks afresh (`ssoRefusalFor`).
 */
const KEY = 'sso_managed';

/** A settings strategy's `prepare`: the decision, unless the flow already holds one. */
export async function prepareSsoManaged(
  flow: FlowDraft,
  { service, identity }: NodeContext,
): Promise<Record<string, unknown>> {
  if (typeof flow.internal[KEY] === 'boolean' || !identity) return {};
  return { [KEY]: (await ssoRefusalFor(service, ssoSubject(identity))) !== undefined };
}

/** Whether the flow's person signs in through their organisation's provider only. */
export const ssoManaged = (flow: Pick<FlowDraft, 'internal'>): boolean => flow.internal[KEY] === true;

/** The flow's messages with the reason why address, password and passkey are not offered, when so. */
export const withSsoManagedNotice = (flow: Pick<FlowDraft, 'internal'>, ui: UiContainer): UiContainer =>
  ssoManaged(flow) ? { ...ui, messages: [...(ui.messages ?? []), messages.ssoManaged()] } : ui;
