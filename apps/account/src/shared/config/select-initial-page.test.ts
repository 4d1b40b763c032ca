import { describe, expect, it } from 'vitest';
import type { AccessTokenClaims } from '../oauth2/jwt.ts';
import type { InitialPageTable } from './env.ts';
import { landingPaths, selectInitialPage } from './select-initial-page.ts';

const table: InitialPageTable = {
  default: 'research',
  rules: [
    { products: ['MAGIC'], scopeGroups: ['finance'], page: 'analytics' },
    { scopeGroups: ['ops'], page: 'deployments' },
    { products: ['AI'], page: 'agents' },
  ],
};

const token = (ext: NonNullable<AccessTokenClaims['ext']>): AccessTokenClaims => ({ ext });

const cases: [string, InitialPageTable, AccessTokenClaims | null, string][] = [
  ['no token: the default', table, null, '/research'],
  [
    'the default table is research',
    { default: 'research', rules: [] },
    token({ products: ['MAGIC'] }),
    '/research',
  ],
  [
    'a rule needs one of its products and one of its scope groups',
    table,
    token({ products: ['MAGIC'], scopeGroups: ['finance'] }),
    '/analytics',
  ],
  [
    'product without the scope group does not match that rule',
    table,
    token({ products: ['MAGIC'], scopeGroups: [] }),
    '/research',
  ],
  ['a rule with scope groups only', table, token({ products: [], scopeGroups: ['ops'] }), '/deployments'],
  [
    'the first matching rule wins',
    table,
    token({ products: ['MAGIC', 'AI'], scopeGroups: ['finance', 'ops'] }),
    '/analytics',
  ],
  ['a rule with products only', table, token({ products: ['AI'] }), '/agents'],
  [
    'an unsubscribed organisation: the welcome page',
    table,
    token({ products: ['AI'], subscriptionStatus: 'not_subscribed' }),
    '/welcome',
  ],
  [
    'a subscribed organisation: the table',
    table,
    token({ products: ['AI'], subscriptionStatus: 'subscribed' }),
    '/agents',
  ],
];

describe('selectInitialPage', () => {
  it.each(cases)('%s', (_name, t, claims, expected) => {
    expect(selectInitialPage(t, claims)).toBe(expected);
  });

  it('lists every landing page once, the default first', () => {
    expect(landingPaths({ ...table, rules: [...table.rules, { page: 'research' }] })).toEqual([
      '/research',
      '/analytics',
      '/deployments',
      '/agents',
    ]);
  });
});
