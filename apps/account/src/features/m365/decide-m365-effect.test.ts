import { describe, expect, it } from 'vitest';
import type { M365Command, M365EffectInput } from './decide-m365-effect.ts';
import { decideM365Effect } from './decide-m365-effect.ts';

const base: M365EffectInput = {
  isTeams: false,
  interaction: 'none',
  teamsPhase: 'idle',
  teamsToken: null,
  hasAccount: false,
  identityToken: null,
  directoryToken: null,
  tokensPhase: 'idle',
  marketplaceToken: null,
  activationFlag: null,
  activationPhase: 'idle',
  backendLoginPhase: 'idle',
  outcome: null,
  autoContinue: false,
  redirectAttempted: false,
};

const signedIn: Partial<M365EffectInput> = { hasAccount: true, identityToken: 'id', directoryToken: 'graph' };

const rows: [string, Partial<M365EffectInput>, M365Command][] = [
  ['no account, no query: wait for Continue', {}, { type: 'none' }],
  [
    'autoContinue without an account: redirect sign-in',
    { autoContinue: true },
    { type: 'redirect-login', reason: 'auto-continue' },
  ],
  ['MSAL still busy: nothing', { autoContinue: true, interaction: 'startup' }, { type: 'none' }],
  [
    'final step without an identity token forces a redirect sign-in',
    { marketplaceToken: 'mp' },
    { type: 'redirect-login', reason: 'final-step' },
  ],
  ['… once only', { marketplaceToken: 'mp', redirectAttempted: true }, { type: 'none' }],
  ['signed in, tokens missing: acquire them', { hasAccount: true }, { type: 'acquire-tokens' }],
  ['token acquisition running: wait', { hasAccount: true, tokensPhase: 'running' }, { type: 'none' }],
  ['token acquisition failed: no loop', { hasAccount: true, tokensPhase: 'failed' }, { type: 'none' }],
  ['only the identity token: acquire', { hasAccount: true, identityToken: 'id' }, { type: 'acquire-tokens' }],
  [
    'both tokens: backend login with the identity token and the Graph token',
    signedIn,
    { type: 'backend-login', bearer: 'id', graphAccessToken: 'graph' },
  ],
  ['backend login running: wait', { ...signedIn, backendLoginPhase: 'running' }, { type: 'none' }],
  [
    'backend login failed: back on login, no automatic retry',
    { ...signedIn, backendLoginPhase: 'failed' },
    { type: 'none' },
  ],
  ['an outcome ends the flow', { ...signedIn, outcome: 'unauthorised' }, { type: 'none' }],
  [
    'marketplace token, flag "true", both tokens: activate',
    { ...signedIn, marketplaceToken: 'mp', activationFlag: 'true' },
    { type: 'activate', marketplaceToken: 'mp', identityToken: 'id', directoryToken: 'graph' },
  ],
  [
    'flag other than the string "true": no automatic activation',
    { ...signedIn, marketplaceToken: 'mp', activationFlag: 'TRUE' },
    { type: 'none' },
  ],
  [
    'no flag: the Final Step waits for its checkboxes',
    { ...signedIn, marketplaceToken: 'mp' },
    { type: 'none' },
  ],
  [
    'activation running: wait',
    { ...signedIn, marketplaceToken: 'mp', activationFlag: 'true', activationPhase: 'running' },
    { type: 'none' },
  ],
  [
    'activation failed: no automatic retry',
    { ...signedIn, marketplaceToken: 'mp', activationFlag: 'true', activationPhase: 'failed' },
    { type: 'none' },
  ],
  [
    'activation done: backend login',
    { ...signedIn, marketplaceToken: 'mp', activationPhase: 'done' },
    { type: 'backend-login', bearer: 'id', graphAccessToken: 'graph' },
  ],
  ['Teams: fetch the SDK token on entry', { isTeams: true }, { type: 'teams-token' }],
  ['Teams: MSAL status is irrelevant', { isTeams: true, interaction: 'startup' }, { type: 'teams-token' }],
  ['Teams: token fetch running', { isTeams: true, teamsPhase: 'running' }, { type: 'none' }],
  [
    'Teams: token fetch failed (error mode with retry)',
    { isTeams: true, teamsPhase: 'failed' },
    { type: 'none' },
  ],
  [
    'Teams: with the token, backend login without a Graph token',
    { isTeams: true, teamsPhase: 'done', teamsToken: 'teams' },
    { type: 'backend-login', bearer: 'teams', graphAccessToken: null },
  ],
  [
    'Teams: never a redirect sign-in',
    { isTeams: true, teamsPhase: 'running', autoContinue: true },
    { type: 'none' },
  ],
];

describe('decideM365Effect', () => {
  it.each(rows)('%s', (_name, patch, expected) => {
    expect(decideM365Effect({ ...base, ...patch })).toEqual(expected);
  });
});
