import { describe, expect, it } from 'vitest';
import { scimFilter } from './filter.ts';

describe('scimFilter: the SCIM filters this server answers, and nothing else', () => {
  it.each([
    ['User', 'userName eq "a@b.test"', [{ field: 'userName', value: 'a@b.test' }]],
    ['User', 'USERNAME eq "a@b.test"', [{ field: 'userName', value: 'a@b.test' }]],
    ['User', 'externalId eq "x1"', [{ field: 'externalId', value: 'x1' }]],
    ['User', 'emails[type eq "work"].value eq "a@b.test"', [{ field: 'userName', value: 'a@b.test' }]],
    ['User', 'emails[value eq "a@b.test"]', [{ field: 'userName', value: 'a@b.test' }]],
    [
      'User',
      'userName eq "a@b.test" and externalId eq "x1"',
      [
        { field: 'userName', value: 'a@b.test' },
        { field: 'externalId', value: 'x1' },
      ],
    ],
    ['Group', 'displayName eq "Quants"', [{ field: 'displayName', value: 'Quants' }]],
    [
      'Group',
      'id eq "g" and members[value eq "u"]',
      [
        { field: 'id', value: 'g' },
        { field: 'member', value: 'u' },
      ],
    ],
  ] as const)('%s: %s', (kind, filter, expected) => {
    expect(scimFilter(kind, filter)).toEqual(expected);
  });

  it.each([
    ['User', 'userName sw "a"'],
    ['User', 'userName eq "a" or externalId eq "b"'],
    ['User', 'not (userName eq "a")'],
    ['User', 'displayName eq "Quants"'],
    ['User', 'emails[type eq "home"].value eq "a@b.test"'],
    ['User', 'active eq true'],
    ['Group', 'userName eq "a"'],
    ['Group', 'members[display eq "a"]'],
    ['User', 'userName eq'],
    ['User', '(('],
  ] as const)('%s: %s is 400 invalidFilter', (kind, filter) => {
    expect(() => scimFilter(kind, filter)).toThrow(
      expect.objectContaining({ status: 400, scimType: 'invalidFilter' }),
    );
  });

  it('no filter is no condition', () => {
    expect(scimFilter('User', undefined)).toEqual([]);
    expect(scimFilter('User', '  ')).toEqual([]);
  });
});
