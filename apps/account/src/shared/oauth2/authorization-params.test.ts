// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';
import type { AuthorizationParams } from '../storage/registry.ts';
import {
  adoptServerAuthorizationParams,
  authorizationParamsFor,
  clearAuthorizationParams,
  readAuthorizationParams,
  selectAuthorizationParams,
} from './authorization-params.ts';
import { validateCallback } from './callback-validation.ts';

// The PKCE parameters of an authorization the account app server started reach the app in a
// hand-off cookie, which the app takes once at start-up.

const handed = { codeVerifier: 'v'.repeat(43), state: 'server-state', expiration: Date.now() + 60_000 };

afterEach(() => {
  remove(registry.authorizationHandoff);
  remove(registry.authorizationParams);
  remove(registry.supersededAuthorizationParams);
});

describe('adoptServerAuthorizationParams', () => {
  it('moves the handed-off verifier and state to where the code exchange reads them', () => {
    write(registry.authorizationHandoff, handed);
    expect(adoptServerAuthorizationParams()).toBe(true);
    expect(readAuthorizationParams()).toEqual(handed);
    expect(read(registry.authorizationHandoff)).toBeNull();
  });

  it('replayed hand-off: taken once, the cookie is gone after', () => {
    write(registry.authorizationHandoff, handed);
    adoptServerAuthorizationParams();
    write(registry.authorizationParams, { ...handed, state: 'a-later-one' });
    expect(adoptServerAuthorizationParams()).toBe(false);
    expect(readAuthorizationParams()?.state).toBe('a-later-one');
  });

  it('a malformed hand-off (short verifier) is dropped, never adopted', () => {
    write(registry.authorizationParams, handed);
    document.cookie = `${registry.authorizationHandoff.key}=${encodeURIComponent(JSON.stringify({ ...handed, codeVerifier: 'short', state: 'x'.repeat(8) }))}; Path=/`;
    expect(adoptServerAuthorizationParams()).toBe(false);
    expect(readAuthorizationParams()).toEqual(handed);
  });

  it("state mismatch: a callback whose state is not the handed-off authorization's is refused", () => {
    write(registry.authorizationHandoff, handed);
    adoptServerAuthorizationParams();
    const stored = readAuthorizationParams()?.state ?? null;
    expect(validateCallback({ code: 'c', state: 'attacker-state' }, stored).ok).toBe(false);
    expect(validateCallback({ code: 'c', state: handed.state }, stored)).toEqual({ ok: true, code: 'c' });
  });
});

// The person opens the login page while a page that lost its token starts its own authorization:
// the server's answer (its hand-off) arrives, the browser abandons that navigation for the page's own,
// and the next page of the app adopts the hand-off. The answer that comes back is the page's own.
const NOW = 1_000_000;
const own: AuthorizationParams = {
  codeVerifier: 'o'.repeat(43),
  state: 'own-state',
  expiration: NOW + 60_000,
};
const server: AuthorizationParams = { ...handed, expiration: NOW + 60_000 };

describe('selectAuthorizationParams: the parameters an authorization answer belongs to', () => {
  const rows: [string, Parameters<typeof selectAuthorizationParams>[0], AuthorizationParams | null][] = [
    [
      'the current ones, named by the state',
      { current: server, superseded: own, state: server.state, now: NOW },
      server,
    ],
    [
      "the app's own that a hand-off replaced, named by the state",
      { current: server, superseded: own, state: own.state, now: NOW },
      own,
    ],
    [
      'replaced ones past their expiration: the current ones (the callback refuses the state)',
      { current: server, superseded: { ...own, expiration: NOW }, state: own.state, now: NOW },
      server,
    ],
    [
      'a state of neither: the current ones (refused)',
      { current: server, superseded: own, state: 'attacker', now: NOW },
      server,
    ],
    [
      'no state in the answer: the current ones',
      { current: server, superseded: own, state: undefined, now: NOW },
      server,
    ],
    [
      'nothing replaced: the current ones',
      { current: own, superseded: null, state: own.state, now: NOW },
      own,
    ],
    ['nothing kept at all', { current: null, superseded: null, state: own.state, now: NOW }, null],
  ];
  it.each(rows)('%s', (_, input, expected) => {
    expect(selectAuthorizationParams(input)).toEqual(expected);
  });
});

describe("adopting a hand-off over parameters of the app's own", () => {
  const rows: [string, AuthorizationParams | null, AuthorizationParams | null][] = [
    ['valid ones of another authorization are kept aside', own, own],
    ['expired ones are not', { ...own, expiration: NOW }, null],
    [
      'the same authorization (its state) is not kept twice',
      { ...server, codeVerifier: 'x'.repeat(43) },
      null,
    ],
    ['none: nothing to keep', null, null],
  ];
  it.each(rows)('%s', (_, stored, kept) => {
    if (stored) write(registry.authorizationParams, stored);
    write(registry.authorizationHandoff, server);
    expect(adoptServerAuthorizationParams(NOW)).toBe(true);
    expect(readAuthorizationParams()).toEqual(server);
    expect(read(registry.supersededAuthorizationParams)).toEqual(kept);
  });

  it("the page's own answer is redeemed with its own verifier; the server's with the server's; both go after", () => {
    write(registry.authorizationParams, own);
    write(registry.authorizationHandoff, server);
    adoptServerAuthorizationParams(NOW);
    expect(authorizationParamsFor(own.state, NOW)?.codeVerifier).toBe(own.codeVerifier);
    expect(authorizationParamsFor(server.state, NOW)?.codeVerifier).toBe(server.codeVerifier);
    clearAuthorizationParams();
    expect(authorizationParamsFor(own.state, NOW)).toBeNull();
  });
});
