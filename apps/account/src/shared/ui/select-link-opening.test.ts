import { describe, expect, it } from 'vitest';
import { selectLinkOpening } from './select-link-opening.ts';

describe('selectLinkOpening', () => {
  it.each([
    ['a top-level page: a new tab', { framed: false, teamsFlag: false }, 'tab'],
    ['framed (the Teams frame): a new window', { framed: true, teamsFlag: false }, 'window'],
    ['the isTeams flag set: a new window', { framed: false, teamsFlag: true }, 'window'],
    ['both', { framed: true, teamsFlag: true }, 'window'],
  ] as const)('%s', (_label, input, opening) => {
    expect(selectLinkOpening(input)).toBe(opening);
  });
});
