import { describe, expect, it } from 'vitest';
import { DEFAULT_ALLOWED_AUTH_MODES, parseAllowedAuthModes, usesM365 } from './applications.ts';
import {
  allowedAuthModes,
  defaultConfig,
  defaultM365Config,
  m365SignInAvailable,
  parseConfig,
} from './env.ts';

// The app servers' configured lists of authentication modes (they win over each application's
// default), issue 24: the admin application allows m365 too, so Microsoft 365 organisations' admins
// can use the console.

describe('configured authentication modes', () => {
  it('by default the admin application allows ory and m365; the others keep their defaults', () => {
    const configured = parseAllowedAuthModes(DEFAULT_ALLOWED_AUTH_MODES);
    expect(configured).toEqual({ admin: ['ory', 'm365'] });
    expect(usesM365('admin', configured)).toBe(true);
    expect(usesM365('magic', configured)).toBe(true);
    expect(usesM365('platform', configured)).toBe(false);
    const admin = parseConfig({
      ...defaultConfig('admin'),
      allowedAuthModes: configured.admin,
      m365: defaultM365Config(),
    });
    expect(allowedAuthModes(admin)).toEqual(['ory', 'm365']);
    expect(m365SignInAvailable(admin)).toBe(true);
  });

  it('a configured list overrides a default, either way', () => {
    const configured = parseAllowedAuthModes('admin=ory, magic=ory');
    expect(usesM365('admin', configured)).toBe(false);
    expect(usesM365('magic', configured)).toBe(false);
    expect(parseAllowedAuthModes('')).toEqual({});
  });

  it.each(['nobody=ory', 'admin=ory+saml', 'admin', 'admin=', '=ory'])('refuses %s', (value) => {
    expect(() => parseAllowedAuthModes(value)).toThrow(/ALLOWED_AUTH_MODES/);
  });
});
