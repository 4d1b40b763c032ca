import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { teamsHostHandler, TEAMS_HOST_PATH } from './teams-host.ts';

/** The host page for `query`: the app path it embeds and its CSP. */
function hostPage(query: string): { appPath: string; csp: string } {
  const handler = teamsHostHandler({ entraUrl: 'http://localhost:4510', clientId: 'client-1' });
  let body = '';
  const headers: Record<string, string> = {};
  const res = {
    writeHead(_status: number, h: Record<string, string>) {
      Object.assign(headers, h);
      return res;
    },
    end(text: string) {
      body = text;
    },
  } as unknown as ServerResponse;
  expect(handler({ url: `${TEAMS_HOST_PATH}${query}` } as IncomingMessage, res)).toBe(true);
  const json = /<script type="application\/json" id="host-config">(.*?)<\/script>/s.exec(body)?.[1] ?? '{}';
  return {
    appPath: (JSON.parse(json) as { appPath: string }).appPath,
    csp: headers['Content-Security-Policy'] ?? '',
  };
}

describe('the development Teams host page', () => {
  it.each([
    ['by default the m365 login in Teams', '', '/account/m365-login?isTeams=1'],
    ['app= embeds another page of the app', '?app=/', '/'],
    ['app= with a query', '?app=%2Faccount%2Flogin%3Fx%3D1', '/account/login?x=1'],
    ['another origin is never embedded (//host)', '?app=//evil.test/x', '/account/m365-login?isTeams=1'],
    ['another origin is never embedded (/\\host)', '?app=/%5Cevil.test', '/account/m365-login?isTeams=1'],
    [
      'another origin is never embedded (absolute URL)',
      '?app=https://evil.test/',
      '/account/m365-login?isTeams=1',
    ],
  ])('%s', (_label, query, appPath) => {
    expect(hostPage(query).appPath).toBe(appPath);
  });

  it('lets the app frame follow the sign-in redirects to other origins, and may itself be framed by nobody', () => {
    const { csp } = hostPage('');
    expect(csp).toContain("frame-src 'self' http: https:");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});
