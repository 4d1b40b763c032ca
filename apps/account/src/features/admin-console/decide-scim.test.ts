import { describe, expect, it } from 'vitest';
import { consoleCopy } from './copy.ts';
import {
  decideGroupMappings,
  decideMappingsRefusal,
  decideScimFailure,
  decideScimTokenName,
  mappingRows,
  selectScopeGroupChoices,
  type GroupMappingsDecision,
  type MappingRow,
  type MemberChange,
  type ScimTokenNameDecision,
} from './decide-scim.ts';

const t = consoleCopy.scim;
const row = (over: Partial<MappingRow> = {}): MappingRow => ({
  group: 'Quants',
  role: 'user',
  scopeGroups: [],
  more: '',
  ...over,
});

describe('decideScimTokenName', () => {
  it.each<[string, string, ScimTokenNameDecision]>([
    ['a name, trimmed', '  Entra ID provisioning ', { ok: true, name: 'Entra ID provisioning' }],
    ['empty', '   ', { ok: false, error: t.tokens.nameRequired }],
    ['101 characters', 'x'.repeat(101), { ok: false, error: t.tokens.nameTooLong(100) }],
    ['100 characters', 'x'.repeat(100), { ok: true, name: 'x'.repeat(100) }],
  ])('%s', (_name, input, expected) => {
    expect(decideScimTokenName(input)).toEqual(expected);
  });
});

describe('decideGroupMappings', () => {
  it.each<[string, MappingRow[], GroupMappingsDecision]>([
    ['no rows: an empty mapping', [], { ok: true, body: { groupMappings: [] } }],
    [
      'roles, none, scope groups ticked and typed (deduplicated), names trimmed',
      [
        row({ group: ' Quants ', scopeGroups: ['research'], more: 'research, risk desk' }),
        row({ group: 'Platform admins', role: 'org-admin' }),
        row({ group: 'Readers', role: 'none', scopeGroups: ['research'] }),
      ],
      {
        ok: true,
        body: {
          groupMappings: [
            { group: 'Quants', role: 'user', scopeGroups: ['research', 'risk', 'desk'] },
            { group: 'Platform admins', role: 'org-admin', scopeGroups: [] },
            { group: 'Readers', role: null, scopeGroups: ['research'] },
          ],
        },
      },
    ],
    [
      'each row gets its own errors: an empty name, a duplicate (any case), a row that grants nothing',
      [row(), row({ group: '' }), row({ group: 'quants' }), row({ group: 'Nobody', role: 'none' })],
      {
        ok: false,
        error: t.mappings.invalid,
        rowErrors: [[], [t.mappings.groupRequired], [t.mappings.duplicate], [t.mappings.grantsNothing]],
      },
    ],
    [
      'a typed scope group that is no name, and a group name too long',
      [row({ more: 'research, risk desk!' }), row({ group: 'g'.repeat(257) })],
      {
        ok: false,
        error: t.mappings.invalid,
        rowErrors: [[t.mappings.badScopeGroup('desk!')], [t.mappings.groupTooLong(256)]],
      },
    ],
    [
      'more than 50 scope groups on one row',
      [row({ more: Array.from({ length: 51 }, (_, i) => `g${i}`).join(',') })],
      { ok: false, error: t.mappings.invalid, rowErrors: [[t.mappings.tooManyScopeGroups(50)]] },
    ],
  ])('%s', (_name, rows, expected) => {
    expect(decideGroupMappings(rows)).toEqual(expected);
  });

  it('more than 100 mappings are refused as a whole', () => {
    const rows = Array.from({ length: 101 }, (_, i) => row({ group: `g${i}` }));
    const decision = decideGroupMappings(rows);
    expect(decision).toMatchObject({ ok: false, error: t.mappings.tooMany(100) });
    expect(decideGroupMappings(rows.slice(0, 100)).ok).toBe(true);
  });
});

describe('decideMappingsRefusal', () => {
  it.each<[string, string, number, { error: string; rowErrors: string[][] }]>([
    [
      "a scope group the organisation lacks, on the service's row 1",
      'The request is invalid: groupMappings.1.scopeGroups: not a scope group of this organisation: desk',
      3,
      {
        error: t.mappings.invalid,
        rowErrors: [[], ['not a scope group of this organisation: desk'], []],
      },
    ],
    [
      'a row the page does not have: on the form',
      'The request is invalid: groupMappings.7.group: names a group twice',
      2,
      { error: 'The request is invalid: groupMappings.7.group: names a group twice', rowErrors: [] },
    ],
    ['no row named: on the form', 'Too many requests', 2, { error: 'Too many requests', rowErrors: [] }],
  ])('%s', (_name, message, rows, expected) => {
    expect(decideMappingsRefusal(message, rows)).toEqual(expected);
  });
});

describe('mappingRows and selectScopeGroupChoices', () => {
  const mappings = [
    { group: 'Quants', role: 'user' as const, scopeGroups: ['risk', 'research'] },
    { group: 'Readers', role: null, scopeGroups: ['archive'] },
  ];
  it('saved mappings become rows, no role as "none"', () => {
    expect(mappingRows(mappings)).toEqual([
      { group: 'Quants', role: 'user', scopeGroups: ['risk', 'research'], more: '' },
      { group: 'Readers', role: 'none', scopeGroups: ['archive'], more: '' },
    ]);
  });
  it.each<[string, { scopeGroups: string[] }, string[]]>([
    [
      "the mappings' own, sorted, when the organisation has none",
      { scopeGroups: [] },
      ['archive', 'research', 'risk'],
    ],
    [
      "the organisation's and the mappings', once each",
      { scopeGroups: ['research', 'desk'] },
      ['archive', 'desk', 'research', 'risk'],
    ],
  ])('choices: %s', (_name, extra, expected) => {
    expect(selectScopeGroupChoices({ groupMappings: mappings, ...extra })).toEqual(expected);
  });
});

describe('decideScimFailure', () => {
  const managed = { status: 409, body: { errorCode: 'MANAGED_BY_DIRECTORY', message: 'm' }, message: 'm' };
  it.each<[string, { status: number | null; body: unknown; message: string }, MemberChange, string]>([
    [
      'the sixth token: the limit, named',
      { status: 409, body: { errorCode: 'LIMIT_REACHED', message: 'm' }, message: 'm' },
      'other',
      t.tokens.limitReached(5),
    ],
    ['a role edit on a directory-managed member', managed, 'role', t.managedRefused],
    ['reactivating a person the directory deleted', managed, 'reactivate', t.removedByDirectory],
    ["another change the directory refuses: the service's message", managed, 'other', 'm'],
    [
      "anything else: the service's message",
      {
        status: 400,
        body: { errorCode: 'INVALID_REQUEST', message: 'bad scope group' },
        message: 'bad scope group',
      },
      'role',
      'bad scope group',
    ],
    ['no answer', { status: null, body: null, message: 'Failed to fetch' }, 'other', 'Failed to fetch'],
  ])('%s', (_name, failure, change, expected) => {
    expect(decideScimFailure(failure, change)).toBe(expected);
  });
});
