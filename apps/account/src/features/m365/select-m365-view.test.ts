import { describe, expect, it } from 'vitest';
import type { M365View, M365ViewInput } from './select-m365-view.ts';
import { selectM365View } from './select-m365-view.ts';

const base: M365ViewInput = {
  isTeams: false,
  interaction: 'none',
  busy: false,
  outcome: null,
  fatalError: null,
  marketplaceToken: null,
  hasM365Token: false,
};

const rows: [string, Partial<M365ViewInput>, M365View][] = [
  ['nothing known yet: login ("Welcome" with Continue)', {}, 'login'],
  ['MSAL starting up: loading', { interaction: 'startup' }, 'loading'],
  ['MSAL handling a redirect response: loading', { interaction: 'handleRedirect' }, 'loading'],
  ['a popup is open: still the login screen behind it', { interaction: 'login' }, 'login'],
  ['inside Teams MSAL is not consulted', { isTeams: true, interaction: 'startup' }, 'login'],
  ['the backend login runs: loading (spinner)', { busy: true }, 'loading'],
  [
    'a marketplace token: activate-subscription (Final Step)',
    { marketplaceToken: 'mp' },
    'activate-subscription',
  ],
  ['an m365 token of ours already stored: authenticated', { hasM365Token: true }, 'authenticated'],
  [
    'the marketplace token wins over an existing token',
    { marketplaceToken: 'mp', hasM365Token: true },
    'activate-subscription',
  ],
  ['UserNotGrantedAccessException: consent-required', { outcome: 'not-granted' }, 'consent-required'],
  [
    'UserNotSubscribedException: subscription-required',
    { outcome: 'not-subscribed' },
    'subscription-required',
  ],
  ['UnauthorisedUserException: unauthorised-user', { outcome: 'unauthorised' }, 'unauthorised-user'],
  ['backend login succeeded: authenticated', { outcome: 'authenticated', busy: true }, 'authenticated'],
  [
    'a purchase for an organisation already subscribed',
    { outcome: 'already-subscribed', marketplaceToken: 'mp' },
    'already-subscribed',
  ],
  [
    'an outcome wins over a marketplace token',
    { outcome: 'not-subscribed', marketplaceToken: 'mp' },
    'subscription-required',
  ],
  [
    'a fatal error (Teams SDK) wins over everything',
    { fatalError: 'SDK initialization timed out.', outcome: 'unauthorised', busy: true },
    'error',
  ],
  ['Teams token fetch running: loading', { isTeams: true, busy: true }, 'loading'],
];

describe('selectM365View', () => {
  it.each(rows)('%s', (_name, patch, expected) => {
    expect(selectM365View({ ...base, ...patch })).toBe(expected);
  });
});
