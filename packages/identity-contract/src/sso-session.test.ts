import { describe, expect, it } from 'vitest';
import { isSsoSession } from './sso-session.ts';

describe('isSsoSession: signed in by the organisation’s SSO', () => {
  it.each([
    { methods: [{ method: 'oidc' }], sso: true },
    { methods: [{ method: 'saml' }], sso: true },
    { methods: ['saml'], sso: true },
    { methods: ['oidc', 'totp'], sso: true },
    { methods: [{ method: 'password' }, { method: 'totp' }], sso: false },
    { methods: ['password'], sso: false },
    { methods: [{}], sso: false },
    { methods: [], sso: false },
    { methods: undefined, sso: false },
  ])('$methods → $sso', ({ methods, sso }) => {
    expect(isSsoSession(methods)).toBe(sso);
  });
});
