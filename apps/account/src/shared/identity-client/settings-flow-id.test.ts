import { describe, expect, it } from 'vitest';
import { HttpError } from '../errors/http-error.ts';
import { settingsFlowIdFrom, settingsFlowIdFromError } from './settings-flow-id.ts';

describe('settingsFlowIdFrom', () => {
  it('reads the 422 redirect target', () => {
    expect(
      settingsFlowIdFrom({ redirect_browser_to: 'http://localhost:4000/account/profile?flow=s-1' }),
    ).toBe('s-1');
  });
  it('reads continue_with show_settings_ui', () => {
    expect(
      settingsFlowIdFrom({ continue_with: [{ action: 'show_settings_ui', flow: { id: 's-2', url: 'x' } }] }),
    ).toBe('s-2');
  });
  it('null otherwise', () => {
    expect(settingsFlowIdFrom({ redirect_browser_to: 'not a url' })).toBeNull();
    expect(settingsFlowIdFrom(null)).toBeNull();
  });
});

describe('settingsFlowIdFromError', () => {
  it('reads the 422 body of a failed submit', () => {
    const error = new HttpError(422, 'Unprocessable Entity', {
      error: { id: 'browser_location_change_required' },
      redirect_browser_to: 'http://localhost:4000/account/profile?flow=s-3',
    });
    expect(settingsFlowIdFromError(error)).toBe('s-3');
  });
  it('null for other errors', () => {
    expect(settingsFlowIdFromError(new Error('network'))).toBeNull();
    expect(settingsFlowIdFromError(new HttpError(400, 'Bad Request', { ui: {} }))).toBeNull();
  });
});
