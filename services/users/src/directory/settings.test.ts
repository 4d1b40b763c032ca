import { describe, expect, it } from 'vitest';
import type { ScimGroupMapping } from '../db-types.ts';
import { decideDirectoryGrants } from './settings.ts';

const MAPPINGS: ScimGroupMapping[] = [
  { group: 'Quants', role: 'user', scopeGroups: ['quant'] },
  { group: 'IT admins', role: 'org-admin', scopeGroups: ['research'] },
  { group: 'Research', role: null, scopeGroups: ['research', 'data'] },
];

describe('decideDirectoryGrants: the role and scope groups a person in some groups gets', () => {
  it.each([
    ['no mapping decides nothing', [], ['Quants'], { role: null, scopeGroups: null }],
    ['in no mapped group: member, no scope groups', MAPPINGS, ['Other'], { role: 'member', scopeGroups: [] }],
    ['user maps to member', MAPPINGS, ['Quants'], { role: 'member', scopeGroups: ['quant'] }],
    [
      'the highest role wins, scope groups are the union (sorted, once)',
      MAPPINGS,
      ['Quants', 'IT admins', 'Research'],
      { role: 'org-admin', scopeGroups: ['data', 'quant', 'research'] },
    ],
    [
      'mappings without roles leave the role alone',
      [MAPPINGS[2]!],
      ['Research'],
      { role: null, scopeGroups: ['data', 'research'] },
    ],
    ['group names match exactly', MAPPINGS, ['quants'], { role: 'member', scopeGroups: [] }],
  ] as const)('%s', (_name, mappings, groups, expected) => {
    expect(decideDirectoryGrants(mappings as ScimGroupMapping[], groups)).toEqual(expected);
  });
});
