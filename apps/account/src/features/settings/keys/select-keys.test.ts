import { describe, expect, it } from 'vitest';
import type { UiNode } from '../../../shared/identity-client/types.ts';
import { selectKeys } from './select-keys.ts';

const node = (name: string, value: unknown, context?: object, group = 'passkey') => ({
  type: 'input',
  group,
  attributes: { name, value, node_type: 'input' },
  messages: [],
  meta: context ? { label: { id: 1050020, text: 'Remove', type: 'info', context } } : {},
});
const flow = (...nodes: object[]) => ({ ui: { action: '', method: 'POST', nodes: nodes as UiNode[] } });
const options = { challenge: 'abc', rp: { id: 'localhost' } };
const data = JSON.stringify({ credentialOptions: { publicKey: options } });
const createData = node('passkey_create_data', data);
const laptop = {
  display_name: 'Laptop',
  added_at: '2026-11-01T10:00:00Z',
  last_used_at: '2026-11-20T08:00:00Z',
};
const yubikey = { ...laptop, display_name: 'YubiKey', last_used_at: null };

describe('selectKeys: passkeys', () => {
  it.each([
    ['no flow yet', null, { offered: false, keys: [], createOptions: null }],
    [
      'not offered (no passkey nodes: SSO enforced)',
      flow(node('totp_unlink', true, undefined, 'totp')),
      { offered: false },
    ],
    [
      'offered, none yet',
      flow(createData, node('passkey_settings_register', '')),
      { offered: true, keys: [], createOptions: options },
    ],
    [
      'one passkey, used',
      flow(createData, node('passkey_remove', 'ab01', laptop), node('passkey_rename', 'ab01', laptop)),
      {
        keys: [{ id: 'ab01', name: 'Laptop', addedAt: laptop.added_at, lastUsedAt: laptop.last_used_at }],
      },
    ],
    [
      'never used; the limit reached (no create data)',
      flow(node('passkey_remove', 'cd02', { ...laptop, last_used_at: null })),
      {
        offered: true,
        keys: [{ id: 'cd02', name: 'Laptop', addedAt: laptop.added_at, lastUsedAt: null }],
        createOptions: null,
      },
    ],
    [
      'unreadable create data',
      flow(node('passkey_create_data', '{')),
      { offered: true, createOptions: null },
    ],
    ['a remove node without a name is skipped', flow(node('passkey_remove', 'ef03', {})), { keys: [] }],
    [
      'security keys are not passkeys',
      flow(node('webauthn_remove', 'aa', laptop, 'webauthn')),
      { offered: false, keys: [] },
    ],
  ])('%s', (_name, input, expected) => {
    expect(selectKeys(input, 'passkey')).toMatchObject(expected);
  });
});

describe('selectKeys: security keys (webauthn, the second factor)', () => {
  it.each([
    ['no flow yet', null, { offered: false, keys: [], createOptions: null }],
    [
      'offered, none yet',
      flow(
        node('webauthn_create_data', data, undefined, 'webauthn'),
        node('webauthn_register', '', undefined, 'webauthn'),
      ),
      { offered: true, keys: [], createOptions: options },
    ],
    [
      'one key, never used, with its rename button',
      flow(
        node('webauthn_create_data', data, undefined, 'webauthn'),
        node('webauthn_remove', 'ff01', yubikey, 'webauthn'),
        node('webauthn_rename', 'ff01', yubikey, 'webauthn'),
      ),
      { offered: true, keys: [{ id: 'ff01', name: 'YubiKey', addedAt: yubikey.added_at, lastUsedAt: null }] },
    ],
    [
      'passkeys are not security keys',
      flow(createData, node('passkey_remove', 'ab01', laptop)),
      { offered: false, keys: [], createOptions: null },
    ],
    [
      'the passkey create data is not read for a security key',
      flow(node('passkey_create_data', data, undefined, 'webauthn')),
      { offered: true, createOptions: null },
    ],
  ])('%s', (_name, input, expected) => {
    expect(selectKeys(input, 'webauthn')).toMatchObject(expected);
  });
});
