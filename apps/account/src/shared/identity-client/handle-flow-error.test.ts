import { describe, expect, it, vi } from 'vitest';
import { copy } from '../../copy.ts';
import { HttpError } from '../errors/http-error.ts';
import { classifyFlowError, handleFlowError, routeFlowMessages } from './handle-flow-error.ts';

const err = (status: number, body: unknown) => new HttpError(status, '', body);
const flow = {
  id: 'f',
  ui: { action: '', method: 'POST', nodes: [], messages: [{ id: 4000006, type: 'error', text: 'bad' }] },
};

describe('classifyFlowError (Elements-style dispatcher)', () => {
  it.each([
    ['400 with a flow → re-render', err(400, flow), { type: 'rerender', flow }],
    [
      '400 with a flow whose continue_with shows the verification UI (address not proven) → that flow',
      err(400, {
        ...flow,
        continue_with: [
          { action: 'show_verification_ui', flow: { id: 'v', url: 'http://h/account/verification?flow=v' } },
        ],
      }),
      { type: 'redirect', url: 'http://h/account/verification?flow=v' },
    ],
    [
      '400 session_already_available → home',
      err(400, { error: { id: 'session_already_available' } }),
      { type: 'home' },
    ],
    ['404 → restart', err(404, { error: { code: 404 } }), { type: 'restart', reason: 'not_found' }],
    ['410 → restart', err(410, { error: { code: 410 } }), { type: 'restart', reason: 'expired' }],
    [
      '410 self_service_flow_expired → restart',
      err(410, { error: { id: 'self_service_flow_expired' } }),
      { type: 'restart', reason: 'self_service_flow_expired' },
    ],
    [
      '403 csrf → restart',
      err(403, { error: { id: 'security_csrf_violation' } }),
      { type: 'restart', reason: 'security_csrf_violation' },
    ],
    [
      '403 aal2 with a target → redirect',
      err(403, { error: { id: 'session_aal2_required' }, redirect_browser_to: 'http://x/aal2' }),
      { type: 'redirect', url: 'http://x/aal2' },
    ],
    [
      '422 → redirect_browser_to',
      err(422, { error: { id: 'browser_location_change_required' }, redirect_browser_to: 'http://h/next' }),
      { type: 'redirect', url: 'http://h/next' },
    ],
    [
      '422 without an id → redirect_browser_to',
      err(422, { redirect_browser_to: 'http://h/next' }),
      { type: 'redirect', url: 'http://h/next' },
    ],
    ['401 → unauthorized', err(401, { error: { code: 401 } }), { type: 'unauthorized' }],
    ['500 → error message', err(500, { error: { message: 'down' } }), { type: 'error', message: 'down' }],
    [
      'network failure → error message',
      new TypeError('Failed to fetch'),
      { type: 'error', message: 'Failed to fetch' },
    ],
  ])('%s', (_name, error, expected) => {
    expect(classifyFlowError(error)).toEqual(expected);
  });
});

describe('handleFlowError', () => {
  it('calls the matching handler and honours id overrides', () => {
    const handlers = {
      rerender: vi.fn(),
      restart: vi.fn(),
      home: vi.fn(),
      error: vi.fn(),
      redirect: vi.fn(),
    };
    handleFlowError(err(400, flow), handlers);
    expect(handlers.rerender).toHaveBeenCalledWith(flow);
    const override = vi.fn();
    handleFlowError(err(400, { error: { id: 'session_already_available' } }), {
      ...handlers,
      overrides: { session_already_available: override },
    });
    expect(override).toHaveBeenCalled();
    expect(handlers.home).not.toHaveBeenCalled();
    handleFlowError(err(422, { redirect_browser_to: 'http://h/n' }), handlers);
    expect(handlers.redirect).toHaveBeenCalledWith('http://h/n');
  });
});

describe('routeFlowMessages: every error message is a toast, and also beside its field or form where that helps', () => {
  const msg = (id: number, text: string, type = 'error') => ({ id, type, text });
  const node = (name: string, messages: unknown[]) => ({
    attributes: { node_type: 'input', name },
    messages,
  });
  const flowWith = (messages: unknown[], nodes: unknown[] = []) =>
    ({ ui: { messages, nodes } }) as Parameters<typeof routeFlowMessages>[0];

  it.each([
    [
      'invalid credentials → the form',
      flowWith([msg(4000006, 'bad creds')]),
      [],
      { form: ['bad creds'], fields: {}, toasts: ['bad creds'] },
    ],
    [
      'invalid 2FA code → the form',
      flowWith([msg(4000008, 'bad code')]),
      [],
      { form: ['bad code'], fields: {}, toasts: ['bad code'] },
    ],
    [
      'invalid recovery code → the form',
      flowWith([msg(4060006, 'bad rc')]),
      [],
      { form: ['bad rc'], fields: {}, toasts: ['bad rc'] },
    ],
    [
      "SSO enforced for the address's organisation → the form",
      flowWith([msg(4010090, 'use SSO')]),
      [],
      { form: ['use SSO'], fields: {}, toasts: ['use SSO'] },
    ],
    [
      "outside the organisation's trusted networks → the form, in the app's words",
      flowWith([msg(4010091, 'server words')]),
      [],
      {
        form: [copy.errors.networkNotTrusted],
        fields: {},
        toasts: [copy.errors.networkNotTrusted],
      },
    ],
    [
      'a lockout or "sent too often" → a toast',
      flowWith([msg(4000001, 'too often')]),
      [],
      { form: [], fields: {}, toasts: ['too often'] },
    ],
    [
      'an expired flow → a toast',
      flowWith([msg(4010001, 'expired')]),
      [],
      { form: [], fields: {}, toasts: ['expired'] },
    ],
    [
      'info messages → nowhere',
      flowWith([msg(1010003, 'confirm', 'info')]),
      [],
      { form: [], fields: {}, toasts: [] },
    ],
    [
      "a listed input's message → under that input",
      flowWith([], [node('password', [msg(4000032, 'too short')])]),
      ['password'],
      { form: [], fields: { password: ['too short'] }, toasts: ['too short'] },
    ],
    [
      "an unlisted input's message → the form",
      flowWith([], [node('totp_code', [msg(4000008, 'bad code')])]),
      ['password'],
      { form: ['bad code'], fields: {}, toasts: ['bad code'] },
    ],
    [
      'a flow message and a field message together → both toasts, each also in its place',
      flowWith([msg(4000006, 'bad creds')], [node('password', [msg(4000032, 'too short')])]),
      ['password'],
      { form: ['bad creds'], fields: { password: ['too short'] }, toasts: ['bad creds', 'too short'] },
    ],
  ])('%s', (_name, flow, fields, expected) => {
    expect(routeFlowMessages(flow, fields)).toEqual(expected);
  });
});
