import { describe, expect, it } from 'vitest';
import { selectSignUpLink } from './select-sign-up-link.ts';

describe('selectSignUpLink', () => {
  const open = { selfSignUp: true, isSSO: false, isM365: false };
  const cases: [string, Parameters<typeof selectSignUpLink>[0], boolean][] = [
    ['password step, open organisation', { step: 'password', emailResult: open }, true],
    ['sign-up closed', { step: 'password', emailResult: { ...open, selfSignUp: false } }, false],
    [
      'no answer about sign-up (older stored result)',
      { step: 'password', emailResult: { isSSO: false, isM365: false } },
      false,
    ],
    ['an SSO address', { step: 'password', emailResult: { ...open, isSSO: true } }, false],
    ['a Microsoft 365 address', { step: 'password', emailResult: { ...open, isM365: true } }, false],
    ['password confirmation', { step: 'password-confirmation', emailResult: open }, false],
    ['no email result', { step: 'password', emailResult: null }, false],
  ];
  it.each(cases)('%s', (_name, input, expected) => {
    expect(selectSignUpLink(input)).toBe(expected);
  });
});
