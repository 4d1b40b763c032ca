// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';
import { adoptServerAuthorizationParams, readAuthorizationParams } from './authorization-params.ts';
import { validateCallback } from './callback-validation.ts';

// The PKCE parameters of an authorization the account app server started reach the app in a
// hand-off cookie, which the app takes once at start-up.

const handed = { codeVerifier: 'v'.repeat(43), state: 'server-state', expiration: Date.now() + 60_000 };

afterEach(() => {
  remove(registry.authorizationHandoff);
  remove(registry.authorizationParams);
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
