import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkReturnTo } from './return-to.ts';

const allowed = [
  'http://localhost:4000',
  'http://localhost:4001',
  'http://localhost:4444',
  'https://app.example.com/account',
  'https://*.tenant.example',
];

describe('return_to allow-list (ASVS 3.7.2 open redirects)', () => {
  it.each([
    ['http://localhost:4000/', 'http://localhost:4000/'],
    ['http://localhost:4000', 'http://localhost:4000/'],
    ['http://localhost:4001/account/login?x=1', 'http://localhost:4001/account/login?x=1'],
    ['http://localhost:4444/oauth2/sessions/logout', 'http://localhost:4444/oauth2/sessions/logout'],
    ['https://app.example.com/account', 'https://app.example.com/account'],
    ['https://app.example.com/account/profile', 'https://app.example.com/account/profile'],
    ['https://a.tenant.example/x', 'https://a.tenant.example/x'],
    ['HTTP://LOCALHOST:4000/x', 'http://localhost:4000/x'],
  ])('accepts %s', (input, out) => {
    expect(checkReturnTo(input, allowed)).toBe(out);
  });

  it.each([
    '//evil.example',
    '\\\\evil.example',
    '/\\evil.example',
    'https:evil.example',
    'http:/localhost:4000/',
    'http:localhost:4000',
    'https://ok@evil.example',
    'http://localhost:4000@evil.example/',
    'http://user:pass@localhost:4000/',
    'http://localhost:4000.evil.example/',
    'http://localhost.evil.example:4000/',
    'http://localhost:4002/',
    'https://localhost:4000/',
    'javascript:alert(1)',
    'data:text/html,x',
    'http://localhost:4000\\@evil.example',
    'http://localhost:4000/%2f%2fevil.example',
    'http://localhost:4000/x%5cevil',
    'https://app.example.com/accountant',
    'https://app.example.com/',
    'https://app.example.com/account/../admin',
    'https://tenant.example/',
    'https://evil-tenant.example/',
    ' http://localhost:4000/',
    'http://local\thost:4000/',
    'http://localhost:4000/\nx',
    '/account/login',
    '',
    'http://xn--lcalhost-9za:4000/',
    'http://lοcalhost:4000/', // Greek omicron look-alike
  ])('refuses %s', (input) => {
    expect(checkReturnTo(input, allowed)).toBeNull();
  });

  it('property: whatever it accepts is on an allowed origin and carries no credentials', () => {
    const origins = new Set([
      'http://localhost:4000',
      'http://localhost:4001',
      'http://localhost:4444',
      'https://app.example.com',
    ]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
          fc.string(),
          fc
            .tuple(
              fc.constantFrom('http://localhost:4000', '//', 'https:', '\\\\', 'http://localhost:4000@'),
              fc.string(),
            )
            .map(([a, b]) => a + b),
        ),
        (input) => {
          const out = checkReturnTo(input, allowed);
          if (out === null) return true;
          const u = new URL(out);
          const originOk = origins.has(u.origin) || u.hostname.endsWith('.tenant.example');
          return originOk && u.username === '' && u.password === '' && !input.includes('\\');
        },
      ),
      { numRuns: 2000 },
    );
  });
});
