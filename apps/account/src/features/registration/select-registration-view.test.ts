import { describe, expect, it } from 'vitest';
import type { RegistrationFlow } from '../../shared/identity-client/types.ts';
import { selectAfterRegistration, selectRegistrationView } from './select-registration-view.ts';

const error = (id: number, text: string) => ({ id, text, type: 'error' as const });
const node = (name: string, messages: ReturnType<typeof error>[] = []) => ({
  type: 'input',
  group: 'password',
  attributes: { name, type: 'text', node_type: 'input', disabled: false },
  messages,
  meta: {},
});
const flow = (nodes: ReturnType<typeof node>[], messages: ReturnType<typeof error>[] = []) =>
  ({ id: 'f', ui: { action: '', method: 'POST', nodes, messages } }) as unknown as RegistrationFlow;

describe('selectRegistrationView', () => {
  const cases: [string, Parameters<typeof selectRegistrationView>[0], unknown][] = [
    ['closed wins over a flow', { closed: true, flow: flow([]) }, { kind: 'closed' }],
    ['no flow yet: loading', { closed: false, flow: null }, { kind: 'loading' }],
    [
      'a fresh flow: the form without errors',
      { closed: false, flow: flow([node('traits.email'), node('password')]) },
      { kind: 'form', fieldErrors: { email: [], first: [], last: [], password: [] }, formErrors: [] },
    ],
    [
      'field messages go to their fields, flow messages to the form',
      {
        closed: false,
        flow: flow(
          [node('traits.email', [error(4040090, 'not open')]), node('password', [error(4000032, 'short')])],
          [error(4000007, 'exists'), { id: 1, text: 'info', type: 'info' } as never],
        ),
      },
      {
        kind: 'form',
        fieldErrors: { email: ['not open'], first: [], last: [], password: ['short'] },
        formErrors: ['exists'],
      },
    ],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(selectRegistrationView(input)).toEqual(expected);
  });
});

describe('selectAfterRegistration', () => {
  const paths = { verification: '/account/verification', login: '/account/login' };
  const cases: [string, unknown, string][] = [
    [
      'the verification flow the service started',
      {
        continue_with: [
          { action: 'show_verification_ui', flow: { id: 'v-1' } },
          { action: 'redirect_browser_to' },
        ],
      },
      '/account/verification?flow=v-1',
    ],
    ['no continue_with: login', { session: {} }, '/account/login'],
    ['another action only: login', { continue_with: [{ action: 'redirect_browser_to' }] }, '/account/login'],
    [
      'a malformed flow id: login',
      { continue_with: [{ action: 'show_verification_ui', flow: { id: 7 } }] },
      '/account/login',
    ],
    ['no body: login', null, '/account/login'],
  ];
  it.each(cases)('%s', (_name, answer, expected) => {
    expect(selectAfterRegistration(answer, paths)).toBe(expected);
  });
});
