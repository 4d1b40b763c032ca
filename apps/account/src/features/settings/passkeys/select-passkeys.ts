import type { SettingsFlow, UiNode } from '../../../shared/identity-client/types.ts';

// The Passkeys section from the settings flow's nodes (what the identity service offers is what the
// page shows): each passkey with its name, when it was added and last used, and whether one can be added.

export interface PasskeyRow {
  /** The key's id as the service names it (hex), the value of its remove and rename buttons. */
  id: string;
  name: string;
  addedAt: string;
  lastUsedAt: string | null;
}

export interface PasskeysView {
  /** Whether the service offers passkeys to this person at all (not to SSO-enforced organisations). */
  offered: boolean;
  passkeys: PasskeyRow[];
  /** The options for the browser to make a new passkey (JSON), or null when none can be added. */
  createOptions: unknown;
}

const attrs = (n: UiNode) => n.attributes as { name?: string; value?: unknown; id?: string };

function row(n: UiNode): PasskeyRow | null {
  const context = n.meta.label?.context as
    { display_name?: unknown; added_at?: unknown; last_used_at?: unknown } | undefined;
  const id = attrs(n).value;
  if (typeof id !== 'string' || typeof context?.display_name !== 'string') return null;
  return {
    id,
    name: context.display_name,
    addedAt: typeof context.added_at === 'string' ? context.added_at : '',
    lastUsedAt: typeof context.last_used_at === 'string' ? context.last_used_at : null,
  };
}

function createOptionsOf(nodes: UiNode[]): unknown {
  const data = nodes.find((n) => attrs(n).name === 'passkey_create_data');
  const value = data ? attrs(data).value : undefined;
  if (typeof value !== 'string') return null;
  try {
    return (
      (JSON.parse(value) as { credentialOptions?: { publicKey?: unknown } }).credentialOptions?.publicKey ??
      null
    );
  } catch {
    return null;
  }
}

export function selectPasskeys(flow: Pick<SettingsFlow, 'ui'> | null): PasskeysView {
  const nodes = (flow?.ui.nodes ?? []).filter((n) => n.group === 'passkey');
  const passkeys = nodes
    .filter((n) => attrs(n).name === 'passkey_remove')
    .map(row)
    .filter((r): r is PasskeyRow => r !== null);
  return { offered: nodes.length > 0, passkeys, createOptions: createOptionsOf(nodes) };
}
