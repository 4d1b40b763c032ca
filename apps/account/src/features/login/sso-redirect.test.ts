import { describe, expect, it } from 'vitest';
import { planSsoRedirect, ssoStepView } from './sso-redirect.ts';

const NOW = 1_800_000_000_000;
const lock = (expiresInMs: number) => ({ id: 'l', expiresAt: NOW + expiresInMs });

describe('SSO step view (login step 3)', () => {
  it.each([
    ['no lock, no redirects yet → redirect now', { lock: null, redirects: 0 }, 'redirect'],
    ['an expired lock → redirect now', { lock: lock(-1), redirects: 2 }, 'redirect'],
    ['a lock present → Proceed button', { lock: lock(60_000), redirects: 1 }, 'proceed'],
    ['exactly 5 redirects → still allowed', { lock: null, redirects: 5 }, 'redirect'],
    ['more than 5 redirects → "Redirect loop detected."', { lock: null, redirects: 6 }, 'loop'],
    ['more than 5 redirects wins over a lock', { lock: lock(60_000), redirects: 7 }, 'loop'],
    ['a loop after 2 tries → "Try again" once more', { lock: null, redirects: 6, tries: 2 }, 'loop'],
    [
      'a loop after 3 tries → only "Use another email" and support',
      { lock: null, redirects: 6, tries: 3 },
      'loop-final',
    ],
    [
      '3 tries used but no loop (the count restarted) → redirect',
      { lock: null, redirects: 1, tries: 3 },
      'redirect',
    ],
    [
      'inside the Teams frame (pop-up) → the pop-up button, whatever the lock or count',
      { lock: lock(60_000), redirects: 7, popup: true },
      'popup',
    ],
    [
      'inside the Teams frame, nothing counted yet → the pop-up button',
      { lock: null, redirects: 0, popup: true },
      'popup',
    ],
  ] as const)('%s', (_label, input, view) => {
    expect(ssoStepView({ tries: 0, ...input, now: NOW })).toBe(view);
  });
});

describe('SSO redirect plan', () => {
  it('takes a 10-minute SSO lock, raises the login lock to 30 s, counts the redirect, posts method oidc', () => {
    let n = 0;
    const plan = planSsoRedirect({
      now: NOW,
      newId: () => `id-${++n}`,
      redirects: 2,
      flow: { action: 'http://id.test/self-service/login?flow=f1', csrfToken: 'csrf' },
      provider: 'globex',
    });
    expect(plan).toEqual({
      ssoLock: { id: 'id-1', expiresAt: NOW + 10 * 60 * 1000 },
      loginLock: { id: 'id-2', expiresAt: NOW + 30 * 1000 },
      redirects: 3,
      form: {
        action: 'http://id.test/self-service/login?flow=f1',
        fields: { method: 'oidc', provider: 'globex', csrf_token: 'csrf' },
      },
    });
  });
});
