import { appWordedText } from '../../shared/identity-client/handle-flow-error.ts';
import type { SettingsFlow, UiNode } from '../../shared/identity-client/types.ts';

// What the settings flow offers beyond its keys (those are `select-keys.ts`'s): whether a password
// can be set, and the flow's notices (its info messages, in the app's words where it has its own).
// The identity service decides: a member of an organisation that enforces single sign-on gets no
// password node, and a notice saying why.

export interface SettingsOffers {
  password: boolean;
  notices: string[];
}

const nodeName = (n: UiNode) => (n.attributes as { name?: string }).name;

export function selectSettingsOffers(flow: Pick<SettingsFlow, 'ui'> | null): SettingsOffers {
  const ui = flow?.ui;
  return {
    password: (ui?.nodes ?? []).some((n) => n.group === 'password' && nodeName(n) === 'password'),
    notices: (ui?.messages ?? []).filter((m) => m.type === 'info').map((m) => appWordedText(m.id) ?? m.text),
  };
}
