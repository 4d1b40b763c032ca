import { registry } from '../shared/storage/registry.ts';
import { write } from '../shared/storage/storage.ts';
import { mockFetch, type MockCall } from './fetch-mock.ts';
import { fakeJwt, kratosSession } from './identity.ts';

// The admin console's screen tests: an org-admin signed in to the app, and a fetch stand-in that
// answers the session and `/console/me` before the section's own stand-in.

export const CONSOLE_ORG = '11111111-1111-4111-8111-111111111111';

/** `/console/me` of an org-admin of CONSOLE_ORG with these permissions. */
export const consoleAdmin = (permissions: string[]) => ({
  userId: '33333333-3333-4333-8333-333333333333',
  email: 'ada@acme.test',
  organisationId: CONSOLE_ORG,
  role: 'org-admin',
  permissions,
  assignableRoles: ['member', 'admin', 'org-admin'],
});

export type ConsoleAnswer = { status: number; body?: unknown } | undefined;

/** Stores a signed-in person's tokens (valid for an hour), as the callback leaves them. */
function storeConsoleTokens(): void {
  write(registry.oauth2Token, {
    accessToken: fakeJwt({ exp: Date.now() / 1000 + 3600, ext: { user: { authenticationMode: 'ory' } } }),
    refreshToken: 'ory_rt_1',
    expiresAt: Date.now() + 3_600_000,
  });
}

/** Signed in as `me`: the session and `/console/me` are answered here, every other call by `more`. */
export function signedInToConsole(
  me: unknown,
  more: (call: MockCall) => ConsoleAnswer | Promise<ConsoleAnswer>,
) {
  storeConsoleTokens();
  return mockFetch((call) => {
    if (call.url.pathname === '/sessions/whoami') return { status: 200, body: kratosSession() };
    if (call.url.pathname === '/console/me') return { status: 200, body: me };
    return more(call);
  });
}
