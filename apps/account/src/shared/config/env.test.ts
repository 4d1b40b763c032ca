import { describe, expect, it } from 'vitest';
import { APPLICATIONS } from './applications.ts';
import type { AccountConfig } from './env.ts';
import {
  allowedAuthModes,
  defaultConfig,
  defaultM365Config,
  m365SignInAvailable,
  parseConfig,
  requiredProducts,
} from './env.ts';

describe('the eight applications', () => {
  it.each([
    ['platform', 'Platform', 'http://localhost:4000', ['ory'], ['Platform']],
    ['magic', 'MAGIC', 'http://localhost:4001', ['ory', 'm365'], ['MAGIC']],
    ['admin', 'admin', 'http://localhost:4002', ['ory'], []],
    ['dashboard', 'dashboard', 'http://localhost:4003', ['ory'], []],
    ['local', 'local', 'http://localhost:4004', ['ory', 'm365'], []],
    ['ai', 'AI', 'http://localhost:4005', ['ory'], []],
    ['ai-sandbox', 'AI sandbox', 'http://localhost:4006', ['ory'], []],
    ['ai-uat', 'AI UAT', 'http://localhost:4007', ['ory'], []],
  ] as const)('%s: name, origin, allowed modes, required products', (app, name, origin, modes, products) => {
    const config = parseConfig(defaultConfig(app));
    expect(config.appName).toBe(name);
    expect(config.clientId).toBe(app);
    expect(config.urlMap[app]).toBe(origin);
    expect(allowedAuthModes(config)).toEqual(modes);
    expect(requiredProducts(config)).toEqual(products);
  });

  it('has one URL-map entry per application', () => {
    expect(Object.keys(defaultConfig('platform').urlMap).sort()).toEqual([...APPLICATIONS].sort());
  });

  it('a configured mode list wins over the default, an empty one does not', () => {
    expect(allowedAuthModes({ ...defaultConfig('platform'), allowedAuthModes: ['m365'] })).toEqual(['m365']);
    expect(allowedAuthModes({ ...defaultConfig('local'), allowedAuthModes: [] })).toEqual(['ory', 'm365']);
  });

  it.each<[string, AccountConfig, boolean]>([
    ['MAGIC by default: allowed and set up', defaultConfig('magic'), true],
    ['local by default: allowed and set up (like MAGIC)', defaultConfig('local'), true],
    ['Platform by default: not allowed, no set-up', defaultConfig('platform'), false],
    [
      'Platform with the set-up but ory only: not allowed',
      { ...defaultConfig('platform'), m365: defaultM365Config() },
      false,
    ],
    [
      'Platform allowing m365 without a set-up: cannot sign in',
      { ...defaultConfig('platform'), allowedAuthModes: ['ory', 'm365'] },
      false,
    ],
    [
      'local configured ory only: not allowed',
      { ...defaultConfig('local'), allowedAuthModes: ['ory'] },
      false,
    ],
  ])('Microsoft 365 sign-in available: %s', (_label, config, available) => {
    expect(m365SignInAvailable(config)).toBe(available);
  });

  it('configured required products win (an empty list turns the check off)', () => {
    expect(requiredProducts({ ...defaultConfig('platform'), requiredProducts: [] })).toEqual([]);
    expect(requiredProducts({ ...defaultConfig('admin'), requiredProducts: ['Platform'] })).toEqual([
      'Platform',
    ]);
  });

  it('refuses an unknown application, a bad mode, a reserved or malformed page name', () => {
    expect(() => parseConfig({ ...defaultConfig('platform'), application: 'other' })).toThrow(/application/);
    expect(() => parseConfig({ ...defaultConfig('platform'), allowedAuthModes: ['password'] })).toThrow();
    for (const page of ['account', 'welcome', 'Research', '../x', '']) {
      expect(() =>
        parseConfig({ ...defaultConfig('platform'), initialPage: { default: page, rules: [] } }),
      ).toThrow(/initialPage/);
    }
    const { magic: _m, ...partial } = defaultConfig('platform').urlMap;
    expect(() => parseConfig({ ...defaultConfig('platform'), urlMap: partial })).toThrow(/urlMap/);
  });
});
