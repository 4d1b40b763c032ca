import { describe, expect, it } from 'vitest';
import { HttpError } from '../errors/http-error.ts';
import { browserLocationOf } from './browser-location.ts';

describe('browserLocationOf', () => {
  const change = (to: unknown, status = 422) =>
    new HttpError(status, '', { error: { id: 'browser_location_change_required' }, redirect_browser_to: to });
  it.each([
    [
      'the provider URL of a 422',
      change('https://acme.okta.com/authorize?x=1'),
      'https://acme.okta.com/authorize?x=1',
    ],
    ['a plain-http stand-in', change('http://localhost:4520/auth?a=b'), 'http://localhost:4520/auth?a=b'],
    ['a javascript: URL', change('javascript:alert(1)'), null],
    ['not a URL', change('nowhere'), null],
    ['no location', change(undefined), null],
    ['another status', change('https://acme.okta.com/', 400), null],
    ['another error', new Error('x'), null],
  ])('%s', (_name, error, expected) => {
    expect(browserLocationOf(error)).toBe(expected);
  });
});
