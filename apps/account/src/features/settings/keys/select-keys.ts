import type { copy } from '../../../copy.ts';
import type { SettingsFlow, UiNode } from '../../../shared/identity-client/types.ts';

// The Passkeys section and the security keys of the Two-factor section, from the settings flow's
// nodes (what the identity service offers is what the page shows): each key with its name, when it
// was added and last used, and whether one can be added. Passkeys are the `passkey` method, security
// keys (a second factor) the `webauthn` method; both have the same nodes under their own names.

export type KeyType = 'passkey' | 'webauthn';

/** The words of one kind of key (`copy.passkeys`, `copy.securityKeys`). */
export type KeyCopy = {
  [K in keyof typeof copy.securityKeys]: (typeof copy.securityKeys)[K] extends string
    ? string
    : (name: string) => string;
};

/** The settings flow's field names of each kind (docs/architecture.md, "WebAuthn wire choices"). */
export const KEY_FIELDS = {
  passkey: {
    createData: 'passkey_create_data',
    register: 'passkey_settings_register',
    name: 'passkey_display_name',
    remove: 'passkey_remove',
    rename: 'passkey_rename',
  },
  webauthn: {
    createData: 'webauthn_create_data',
    register: 'webauthn_register',
    name: 'webauthn_register_displayname',
    remove: 'webauthn_remove',
    rename: 'webauthn_rename',
  },
} as const satisfies Record<KeyType, Record<string, string>>;

export interface KeyRow {
  /** The key's id as the service names it (hex), the value of its remove and rename buttons. */
  id: string;
  name: string;
  addedAt: string;
  lastUsedAt: string | null;
}

export interface KeysView {
  /** Whether the service offers this kind of key to this person (no passkeys where SSO is enforced). */
  offered: boolean;
  keys: KeyRow[];
  /** The options for the browser to make a new key (JSON), or null when none can be added. */
  createOptions: unknown;
}

const attrs = (n: UiNode) => n.attributes as { name?: string; value?: unknown; id?: string };

function row(n: UiNode): KeyRow | null {
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

function createOptionsOf(nodes: UiNode[], field: string): unknown {
  const data = nodes.find((n) => attrs(n).name === field);
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

export function selectKeys(flow: Pick<SettingsFlow, 'ui'> | null, type: KeyType): KeysView {
  const fields = KEY_FIELDS[type];
  const nodes = (flow?.ui.nodes ?? []).filter((n) => n.group === type);
  const keys = nodes
    .filter((n) => attrs(n).name === fields.remove)
    .map(row)
    .filter((r): r is KeyRow => r !== null);
  return { offered: nodes.length > 0, keys, createOptions: createOptionsOf(nodes, fields.createData) };
}
