import { describe, expect, it } from 'vitest';
import type { UiNode } from '../../../shared/identity-client/types.ts';
import { selectPasskeys } from './select-passkeys.ts';

const node = (name: string, value: unknown, context?: object, group = 'passkey') => ({
  type: 'input',
  group,
  attributes: { name, value, node_type: 'input' },
  messages: [],
  meta: context ? { label: { id: 1050020, text: 'Remove', type: 'info', context } } : {},
});
const flow = (...nodes: object[]) => ({ ui: { action: '', method: 'POST', nodes: nodes as UiNode[] } });
const options = { challenge: 'abc', rp: { id: 'localhost' } };
const createData = node('passkey_create_data', JSON.stringify({ credentialOptions: { publicKey: options } }));
const laptop = {
  display_name: 'Laptop',
  added_at: '2026-11-01T10:00:00Z',
  last_used_at: '2026-11-20T08:00:00Z',
};

describe('selectPasskeys', () => {
  it.each([
    ['no flow yet', null, { offered: false, passkeys: [], createOptions: null }],
    [
      'not offered (no passkey nodes: SSO enforced)',
      flow(node('totp_unlink', true, undefined, 'totp')),
      { offered: false },
    ],
    [
      'offered, none yet',
      flow(createData, node('passkey_settings_register', '')),
      { offered: true, passkeys: [], createOptions: options },
    ],
    [
      'one passkey, used',
      flow(createData, node('passkey_remove', 'ab01', laptop), node('passkey_rename', 'ab01', laptop)),
      {
        passkeys: [{ id: 'ab01', name: 'Laptop', addedAt: laptop.added_at, lastUsedAt: laptop.last_used_at }],
      },
    ],
    [
      'never used; the limit reached (no create data)',
      flow(node('passkey_remove', 'cd02', { ...laptop, last_used_at: null })),
      {
        offered: true,
        passkeys: [{ id: 'cd02', name: 'Laptop', addedAt: laptop.added_at, lastUsedAt: null }],
        createOptions: null,
      },
    ],
    [
      'unreadable create data',
      flow(node('passkey_create_data', '{')),
      { offered: true, createOptions: null },
    ],
    ['a remove node without a name is skipped', flow(node('passkey_remove', 'ef03', {})), { passkeys: [] }],
    [
      'security keys are not passkeys',
      flow(node('webauthn_remove', 'aa', laptop, 'webauthn')),
      { offered: false, passkeys: [] },
    ],
  ])('%s', (_name, input, expected) => {
    expect(selectPasskeys(input)).toMatchObject(expected);
  });
});
