import { describe, expect, it } from 'vitest';
import { copy } from '../../copy.ts';
import { isValidTeamsAppId, teamsErrorMessage, teamsErrorName, teamsUrlProblem } from './teams-rules.ts';

describe('Teams SDK URL rule: https, at most 2048 characters, no script tags', () => {
  const long = `https://magic.example/${'a'.repeat(2048 - 'https://magic.example/'.length)}`;
  it.each([
    ['https://portal.azure.com/#create/acme.magic', null],
    ['http://portal.azure.com/', copy.teams.urlNotHttps],
    ['javascript:alert(1)', copy.teams.urlNotHttps],
    ['not a url', copy.teams.urlNotHttps],
    [long, null],
    [`${long}b`, copy.teams.urlTooLong(2048)],
    ['https://x.example/?q=<script>alert(1)</script>', copy.teams.urlHasScript],
    ['https://x.example/?q=%3CSCRIPT%3E', copy.teams.urlHasScript],
    ['https://x.example/?q=%3C/script', copy.teams.urlHasScript],
  ])('%s', (url, problem) => {
    expect(teamsUrlProblem(url)).toBe(problem);
  });
});

describe('Teams SDK app id rule: 5 to 255 printable characters, no script tags', () => {
  it.each([
    ['abcd', false],
    ['abcde', true],
    ['9c1e2f0a-6b4d-4b8e-9d3e-1f2a3b4c5d6e', true],
    ['a'.repeat(255), true],
    ['a'.repeat(256), false],
    ['abc\u0007de', false],
    ['abcdé', false],
    ['<script>x', false],
  ])('%j → %s', (appId, ok) => {
    expect(isValidTeamsAppId(appId)).toBe(ok);
  });
});

describe('Teams SDK error codes', () => {
  it.each([
    [100, 'Not supported on platform'],
    [500, 'Internal error'],
    [1000, 'Permission denied'],
    [2000, 'Network error'],
    [4000, 'Invalid arguments'],
    [8000, 'User abort'],
    [8001, 'Timed out'],
    [9999, null],
  ])('%i is %s', (code, name) => {
    expect(teamsErrorName(code)).toBe(name);
  });

  it('names an SdkError by its code', () => {
    expect(teamsErrorMessage({ errorCode: 8000, message: 'closed' })).toBe(
      'Teams error 8000 (User abort): closed',
    );
  });
  it('keeps the initialisation time-out text as it is', () => {
    expect(teamsErrorMessage(new Error('SDK initialization timed out.'))).toBe(
      'SDK initialization timed out.',
    );
  });
  it('a host failure reason that is a code gets its name', () => {
    expect(teamsErrorMessage(new Error('1000'))).toBe('Teams error 1000 (Permission denied)');
  });
  it('any other host failure reason is shown as the reason', () => {
    expect(teamsErrorMessage(new Error('FailedToOpenWindow'))).toBe(
      'Teams could not provide a sign-in token: FailedToOpenWindow',
    );
  });
  it('nothing usable: Unknown error', () => {
    expect(teamsErrorMessage(undefined)).toBe('Unknown error');
  });
});
