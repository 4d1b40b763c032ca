import { describe, expect, it } from 'vitest';
import type { AccessTokenClaims } from '../../shared/oauth2/jwt.ts';
import type { AccessDecision, AccessInput } from './decide-access.ts';
import { decideAccess } from './decide-access.ts';

function claims(ext: NonNullable<AccessTokenClaims['ext']>): AccessTokenClaims {
  return { sub: 'u1', ext };
}

const ory = claims({
  user: { authenticationMode: 'ory' },
  products: ['Platform'],
  scopeGroups: ['research'],
});
const m365 = claims({ user: { authenticationMode: 'm365' }, products: ['MAGIC'], scopeGroups: [] });
const unsubscribed = claims({
  user: { authenticationMode: 'ory' },
  products: [],
  scopeGroups: [],
  subscriptionStatus: 'not_subscribed',
});

const base: AccessInput = { authenticated: true, claims: ory, allowedModes: ['ory'] };

// One row per rule of the access guard.
const cases: [string, Partial<AccessInput>, AccessDecision][] = [
  ['an authenticated ory user with no requirements is allowed', {}, { type: 'allow' }],
  ['a guest goes to login by default', { authenticated: false }, { type: 'login' }],
  [
    'a guest goes to logout when the guard asks',
    { authenticated: false, logoutGuests: true },
    { type: 'logout' },
  ],
  ['a session without a token counts as a guest', { claims: null, logoutGuests: true }, { type: 'logout' }],
  [
    'an m365 token on an ory-only application shows the unauthorised-mode page',
    { claims: m365, hasModePage: true },
    { type: 'denied-mode', mode: 'm365' },
  ],
  ['… or the generic page when the page has no mode page', { claims: m365 }, { type: 'denied-page' }],
  [
    'an m365 token where m365 is allowed passes the mode check',
    { claims: m365, allowedModes: ['ory', 'm365'] },
    { type: 'allow' },
  ],
  [
    'a token without a mode counts as ory',
    { claims: claims({ products: ['Platform'] }), allowedModes: ['ory'] },
    { type: 'allow' },
  ],
  [
    'a missing product shows the product page, naming the required product',
    { requiredProducts: ['MAGIC'] },
    { type: 'denied-product', product: 'MAGIC' },
  ],
  [
    'one of several required products is enough',
    { requiredProducts: ['MAGIC', 'Platform'] },
    { type: 'allow' },
  ],
  ['no required products: no product check', { requiredProducts: [] }, { type: 'allow' }],
  [
    'a missing scope group shows the generic page',
    { requiredScopeGroups: ['admin'] },
    { type: 'denied-page' },
  ],
  [
    'one of several required scope groups is enough',
    { requiredScopeGroups: ['admin', 'research'] },
    { type: 'allow' },
  ],
  [
    'the mode check comes before the product check',
    { claims: m365, hasModePage: true, requiredProducts: ['Platform'] },
    { type: 'denied-mode', mode: 'm365' },
  ],
  [
    'the product check comes before the scope check',
    { requiredProducts: ['MAGIC'], requiredScopeGroups: ['admin'] },
    { type: 'denied-product', product: 'MAGIC' },
  ],
  [
    'an organisation without a subscription goes to the welcome page, not a product error',
    { claims: unsubscribed, welcomeUnsubscribed: true, requiredProducts: ['Platform'] },
    { type: 'welcome' },
  ],
  [
    'the welcome page itself lets an unsubscribed organisation in',
    { claims: unsubscribed, welcomeUnsubscribed: false },
    { type: 'allow' },
  ],
  [
    'an unsubscribed token in the wrong mode still fails the mode check first',
    {
      claims: claims({ user: { authenticationMode: 'm365' }, subscriptionStatus: 'not_subscribed' }),
      welcomeUnsubscribed: true,
      hasModePage: true,
    },
    { type: 'denied-mode', mode: 'm365' },
  ],
];

describe('decideAccess', () => {
  it.each(cases)('%s', (_name, overrides, expected) => {
    expect(decideAccess({ ...base, ...overrides })).toEqual(expected);
  });
});
