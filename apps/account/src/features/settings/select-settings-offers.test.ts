import { describe, expect, it } from 'vitest';
import { copy } from '../../copy.ts';
import { SSO_MANAGED_MESSAGE_ID } from '../../constants.ts';
import type { UiNode, UiText } from '../../shared/identity-client/types.ts';
import { selectSettingsOffers } from './select-settings-offers.ts';

const input = (group: string, name: string) => ({
  type: 'input',
  group,
  attributes: { name, type: 'password', node_type: 'input' },
  messages: [],
  meta: {},
});
const flow = (nodes: object[], messages: object[] = []) => ({
  ui: { action: '', method: 'POST', nodes: nodes as UiNode[], messages: messages as UiText[] },
});
const managed = { id: SSO_MANAGED_MESSAGE_ID, type: 'info', text: 'server words' };

describe('selectSettingsOffers', () => {
  it.each([
    ['no flow yet', null, { password: false, notices: [] }],
    ['a password node', flow([input('password', 'password')]), { password: true, notices: [] }],
    [
      'an enforced SSO member: no password node, the notice in the app’s words',
      flow([input('profile', 'traits.email')], [managed]),
      { password: false, notices: [copy.settings.ssoManaged] },
    ],
    [
      'an info message the app does not word itself keeps the server’s words',
      flow([input('password', 'password')], [{ id: 1, type: 'info', text: 'Hello' }]),
      { password: true, notices: ['Hello'] },
    ],
    [
      'success and error messages are not notices',
      flow(
        [],
        [
          { id: 1050001, type: 'success', text: 'Saved' },
          { id: 4000001, type: 'error', text: 'No' },
        ],
      ),
      { password: false, notices: [] },
    ],
  ])('%s', (_name, given, expected) => {
    expect(selectSettingsOffers(given)).toEqual(expected);
  });
});
