import { describe, expect, it } from 'vitest';
import { decideM365Logout } from './decide-m365-logout.ts';

describe('decideM365Logout', () => {
  it.each([
    [
      'browser: sign out of Microsoft, then the m365 login',
      { cameFromTeams: false, m365Configured: true },
      { type: 'microsoft-sign-out', then: '/account/m365-login' },
    ],
    [
      'came from Teams: straight to the m365 login with isTeams=1',
      { cameFromTeams: true, m365Configured: true },
      { type: 'go', to: '/account/m365-login?isTeams=1' },
    ],
    [
      'no Microsoft sign-in configured: nothing to sign out of',
      { cameFromTeams: false, m365Configured: false },
      { type: 'go', to: '/account/m365-login' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(decideM365Logout(input)).toEqual(expected);
  });
});
