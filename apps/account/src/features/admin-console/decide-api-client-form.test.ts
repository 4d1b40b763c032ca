import { describe, expect, it } from 'vitest';
import { consoleCopy as t } from './copy.ts';
import { decideApiClientForm, type ApiClientFormDecision } from './decide-api-client-form.ts';

describe('decideApiClientForm: a client-credentials client', () => {
  it.each<[string, string, string, ApiClientFormDecision]>([
    [
      'a name and one group',
      'export',
      'research',
      { ok: true, body: { name: 'export', scopeGroups: ['research'] } },
    ],
    [
      'trimmed, groups split on commas and spaces, repeats once',
      '  nightly  ',
      'research, quant  research',
      { ok: true, body: { name: 'nightly', scopeGroups: ['research', 'quant'] } },
    ],
    ['no name', '   ', 'research', { ok: false, field: 'name', error: t.apiClients.nameRequired }],
    [
      'a name too long',
      'x'.repeat(101),
      'research',
      { ok: false, field: 'name', error: t.apiClients.nameTooLong(100) },
    ],
    ['no group', 'export', ' , ', { ok: false, field: 'scopeGroups', error: t.apiClients.groupsRequired }],
    [
      'a group the service refuses',
      'export',
      'research, bad!',
      { ok: false, field: 'scopeGroups', error: t.apiClients.badGroup('bad!') },
    ],
    [
      'too many groups',
      'export',
      Array.from({ length: 51 }, (_, i) => `g${i}`).join(','),
      { ok: false, field: 'scopeGroups', error: t.apiClients.tooManyGroups(50) },
    ],
  ])('%s', (_name, name, scopeGroups, expected) => {
    expect(
      decideApiClientForm({ kind: 'client_credentials', name, scopeGroups, redirectUris: ['ignored'] }),
    ).toEqual(expected);
  });
});

describe('decideApiClientForm: a web app', () => {
  const CALLBACK = 'https://reports.acme.test/callback';
  it.each<[string, string, string[], ApiClientFormDecision]>([
    [
      'a name and one redirect URI; scope groups as typed are not sent',
      'Reports',
      [CALLBACK],
      { ok: true, body: { kind: 'web', name: 'Reports', redirectUris: [CALLBACK] } },
    ],
    [
      'rows trimmed, blank rows left out, repeats once, order kept',
      ' Reports ',
      [` ${CALLBACK} `, '', 'http://localhost:8080/cb', CALLBACK],
      {
        ok: true,
        body: { kind: 'web', name: 'Reports', redirectUris: [CALLBACK, 'http://localhost:8080/cb'] },
      },
    ],
    ['no name', ' ', [CALLBACK], { ok: false, field: 'name', error: t.apiClients.nameRequired }],
    [
      'only blank rows',
      'Reports',
      ['', '  '],
      { ok: false, field: 'redirectUris', error: t.apiClients.redirectRequired },
    ],
    [
      'more rows than the service takes',
      'Reports',
      Array.from({ length: 11 }, (_, i) => `${CALLBACK}/${i}`),
      { ok: false, field: 'redirectUris', error: t.apiClients.tooManyRedirects(10) },
    ],
    [
      'a row that is not an absolute URI',
      'Reports',
      [CALLBACK, '/callback'],
      { ok: false, field: 'redirectUris', error: t.apiClients.badRedirect('/callback') },
    ],
    [
      'http on another host is left to the authorization server, which says why',
      'Reports',
      ['http://reports.acme.test/callback'],
      {
        ok: true,
        body: { kind: 'web', name: 'Reports', redirectUris: ['http://reports.acme.test/callback'] },
      },
    ],
  ])('%s', (_name, name, redirectUris, expected) => {
    expect(decideApiClientForm({ kind: 'web', name, scopeGroups: 'research', redirectUris })).toEqual(
      expected,
    );
  });
});
