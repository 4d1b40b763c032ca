// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest';
import { clearBrowserState } from '../../testing/dom.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { clearAfterExchange } from './callback-exchange.ts';

describe('after a successful code exchange', () => {
  beforeEach(() => clearBrowserState());

  it('clears the 30 s application-login lock the SSO step took, with the SSO lock and the challenge', () => {
    const now = Date.now();
    write(registry.loginLock, { id: 'sso-step', expiresAt: now + 30_000 }, { ttlMs: 30_000 });
    write(registry.ssoRedirectLock, { id: 'sso', expiresAt: now + 600_000 });
    write(registry.loginChallenge, 'challenge-1');
    clearAfterExchange();
    expect(read(registry.loginLock)).toBeNull();
    expect(read(registry.ssoRedirectLock)).toBeNull();
    expect(read(registry.loginChallenge)).toBeNull();
  });
});
