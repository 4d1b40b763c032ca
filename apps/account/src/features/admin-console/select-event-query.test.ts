import { describe, expect, it } from 'vitest';
import { EMPTY_FILTERS, selectEventQuery, type EventFilters } from './select-event-query.ts';

describe('selectEventQuery', () => {
  it.each<[string, EventFilters, Parameters<typeof selectEventQuery>[1], Record<string, string>]>([
    ['no filters, first page', EMPTY_FILTERS, {}, { limit: '25' }],
    [
      'a person and a type',
      { ...EMPTY_FILTERS, person: 'u1', type: 'member.role_changed' },
      {},
      { subjectId: 'u1', type: 'member.role_changed', limit: '25' },
    ],
    ['an unknown type is left out', { ...EMPTY_FILTERS, type: 'nonsense' }, {}, { limit: '25' }],
    ['a next page', EMPTY_FILTERS, { cursor: 'abc', limit: 10 }, { limit: '10', cursor: 'abc' }],
    ['an invalid date is left out', { ...EMPTY_FILTERS, from: 'not a date' }, {}, { limit: '25' }],
    ['the CSV export: no paging', { ...EMPTY_FILTERS, person: 'u1' }, null, { subjectId: 'u1' }],
  ])('%s', (_name, filters, page, expected) => {
    expect(Object.fromEntries(selectEventQuery(filters, page))).toEqual(expected);
  });

  it('turns a local date-time into an instant', () => {
    const params = selectEventQuery({ ...EMPTY_FILTERS, from: '2026-03-01T10:00' }, null);
    expect(params.get('from')).toBe(new Date('2026-03-01T10:00').toISOString());
  });
});
