import { describe, expect, it } from 'vitest';
import { decideSsoOpening, type SsoOpening } from './decide-sso-opening.ts';

const HTTPS = 'https://magic.example.com/account/sso-popup?provider=globex';
const HTTP = 'http://localhost:4001/account/sso-popup?provider=globex';

describe('decideSsoOpening', () => {
  it.each<[string, { framed: boolean; popupUrl: string }, SsoOpening]>([
    ['a top-level page navigates (https)', { framed: false, popupUrl: HTTPS }, { kind: 'navigate' }],
    ['a top-level page navigates (http)', { framed: false, popupUrl: HTTP }, { kind: 'navigate' }],
    [
      'inside the Teams frame, https: the Teams SDK window, 600×400',
      { framed: true, popupUrl: HTTPS },
      { kind: 'teams-sdk', width: 600, height: 400 },
    ],
    [
      'inside the frame, http (development host): the same window opened by the page, polled every 100 ms',
      { framed: true, popupUrl: HTTP },
      { kind: 'window', width: 600, height: 400, pollMs: 100 },
    ],
    [
      'inside the frame, a URL that does not parse: the page opens the window',
      { framed: true, popupUrl: 'not a url' },
      { kind: 'window', width: 600, height: 400, pollMs: 100 },
    ],
  ])('%s', (_label, input, expected) => {
    expect(decideSsoOpening(input)).toEqual(expected);
  });
});
