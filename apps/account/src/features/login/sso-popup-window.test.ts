// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SSO_POPUP_MESSAGE } from '../../constants.ts';
import { openSsoPopup } from './sso-popup-window.ts';

const URL_ = 'http://localhost:3000/account/sso-popup?provider=globex&via=window';
const WINDOW = { kind: 'window', width: 600, height: 400, pollMs: 100 } as const;

/** A stand-in for the browser's window.open: a window object whose `closed` the test sets. */
function stubOpen(popup: { closed: boolean } | null) {
  const open = vi.fn(() => popup as unknown as Window);
  vi.stubGlobal('open', open);
  return open;
}

function post(source: unknown, origin: string, data: unknown) {
  window.dispatchEvent(new MessageEvent('message', { source: source as Window, origin, data }));
}

describe('the SSO pop-up window of the Teams frame', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('opens the pop-up page at 600×400 and ends with the success and the authorization answer it posts', async () => {
    const popup = { closed: false };
    const open = stubOpen(popup);
    const outcome = openSsoPopup(URL_, WINDOW, []);
    expect(open).toHaveBeenCalledTimes(1);
    const [url, target, features] = open.mock.calls[0] as unknown as [string, string, string];
    expect([url, target]).toEqual([URL_, '_blank']);
    expect(features).toMatch(/^popup,width=600,height=400,/);
    post(popup, window.location.origin, {
      type: SSO_POPUP_MESSAGE,
      outcome: 'success',
      callback: '?code=ory_ac_1&state=s1&redirect=https://evil.test',
    });
    await expect(outcome).resolves.toEqual({ outcome: 'success', callback: '?code=ory_ac_1&state=s1' });
  });

  it('polls every 100 ms: a window closed by hand ends as "closed" at the next poll', async () => {
    const popup = { closed: false };
    stubOpen(popup);
    let settled: string | null = null;
    void openSsoPopup(URL_, WINDOW, []).then((r) => (settled = r.outcome));
    popup.closed = true;
    await vi.advanceTimersByTimeAsync(99);
    expect(settled).toBeNull();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('closed');
  });

  it('message forgery: a message from another origin or window does not end the sign-in', async () => {
    const popup = { closed: false };
    stubOpen(popup);
    let settled: string | null = null;
    void openSsoPopup(URL_, WINDOW, []).then((r) => (settled = r.outcome));
    const forged = { type: SSO_POPUP_MESSAGE, outcome: 'success' };
    post(popup, 'https://evil.test', forged); // the pop-up's window, after it went to another site
    post({}, window.location.origin, forged); // another window of our origin
    post(popup, window.location.origin, { type: 'other', outcome: 'success' });
    await vi.advanceTimersByTimeAsync(500);
    expect(settled).toBeNull();
    post(popup, window.location.origin, { type: SSO_POPUP_MESSAGE, outcome: 'failure' });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe('failure');
  });

  it('a blocked pop-up (window.open answers null) says so at once', async () => {
    stubOpen(null);
    await expect(openSsoPopup(URL_, WINDOW, [])).resolves.toEqual({ outcome: 'blocked', callback: null });
  });
});
