import { describe, expect, it } from 'vitest';
import { consoleCopy as t } from './copy.ts';
import { decideApiClientForm, type ApiClientFormDecision } from './decide-api-client-form.ts';

describe('decideApiClientForm', () => {
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
    ['no name', '   ', 'research', { ok: false, error: t.apiClients.nameRequired }],
    ['a name too long', 'x'.repeat(101), 'research', { ok: false, error: t.apiClients.nameTooLong(100) }],
    ['no group', 'export', ' , ', { ok: false, error: t.apiClients.groupsRequired }],
    [
      'a group the service refuses',
      'export',
      'research, bad!',
      { ok: false, error: t.apiClients.badGroup('bad!') },
    ],
    [
      'too many groups',
      'export',
      Array.from({ length: 51 }, (_, i) => `g${i}`).join(','),
      { ok: false, error: t.apiClients.tooManyGroups(50) },
    ],
  ])('%s', (_name, name, scopeGroups, expected) => {
    expect(decideApiClientForm({ name, scopeGroups })).toEqual(expected);
  });
});
