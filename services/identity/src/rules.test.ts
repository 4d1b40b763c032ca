import { describe, expect, it } from 'vitest';
import type { UiContainer } from '@ory/client';
import { lockoutDelayMs, normalizeIdentifier } from './throttle/backoff.ts';
import { computeAal } from './sessions/aal.ts';
import { isJsonRequest } from './http/negotiate.ts';
import { placeMessages, passwordLoginNodes } from './ui/nodes.ts';
import { messages } from './ui/messages.ts';
import { maskToken, unmaskToken } from './http/csrf.ts';
import { checkPasswordPolicy } from './password/policy.ts';
import { loadConfig } from './config.ts';
import { parseDuration } from '@acme/service-kit/duration';

const MIN = 60_000;
const policy = { threshold: 10, baseMs: 15 * MIN, maxMs: 24 * 60 * MIN, resetAfterMs: 24 * 60 * MIN };

describe('lockout schedule', () => {
  it.each([
    [0, 0],
    [9, 0],
    [10, 15 * MIN],
    [11, 30 * MIN],
    [12, 60 * MIN],
    [16, 16 * 60 * MIN],
    [17, 24 * 60 * MIN],
    [50, 24 * 60 * MIN],
    // Lockouts never become permanent, however many failures.
    [100, 24 * 60 * MIN],
    [150, 24 * 60 * MIN],
    [100_000, 24 * 60 * MIN],
  ])('%i failures → wait %d ms', (failures, wait) => {
    expect(lockoutDelayMs(failures, policy)).toBe(wait);
  });
  it('normalises identifiers', () => {
    expect(normalizeIdentifier('  Ada@Example.COM ')).toBe('ada@example.com');
  });
});

describe('AAL from authentication methods', () => {
  it.each([
    [[], 'aal0'],
    [[{ aal: 'aal1' }], 'aal1'],
    [[{ aal: 'aal1' }, { aal: 'aal1' }], 'aal1'],
    [[{ aal: 'aal2' }], 'aal1'],
    [[{ aal: 'aal1' }, { aal: 'aal2' }], 'aal2'],
  ] as const)('%j → %s', (methods, aal) => {
    expect(computeAal([...methods])).toBe(aal);
  });
});

describe('JSON vs browser negotiation (x.IsJSONRequest)', () => {
  it.each([
    [{}, false],
    [{ accept: '*/*' }, false],
    [{ accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, false],
    [{ accept: 'application/json' }, true],
    [{ accept: 'application/json, text/plain, */*' }, true],
    [{ accept: 'text/html;q=0.5, application/json' }, true],
    [{ accept: 'application/*' }, true],
    [{ accept: 'text/html, application/json' }, false],
    [{ 'content-type': 'application/json' }, true],
    [{ 'content-type': 'application/json; charset=utf-8' }, true],
    [{ 'content-type': 'application/x-www-form-urlencoded' }, false],
  ])('%j → json=%s', (headers, json) => {
    expect(isJsonRequest(headers)).toBe(json);
  });
});

describe('message placement (ui/container)', () => {
  const ui: UiContainer = {
    action: 'x',
    method: 'POST',
    nodes: passwordLoginNodes({ identifier: '', refresh: false }),
  };
  it.each([
    ['#/', 'top'],
    ['#/password', 'password'],
    ['#/identifier', 'identifier'],
    ['#/nope', 'top'],
  ])('%s goes to %s', (pointer, where) => {
    const out = placeMessages(ui, [{ pointer, message: messages.invalidCredentials() }]);
    if (where === 'top') expect(out.messages?.map((m) => m.id)).toEqual([4000006]);
    else {
      expect(out.messages ?? []).toEqual([]);
      const n = out.nodes.find((x) => (x.attributes as { name?: string }).name === where)!;
      expect(n.messages.map((m) => m.id)).toEqual([4000006]);
    }
    expect(ui.nodes.every((n) => n.messages.length === 0)).toBe(true); // input untouched
  });
});

describe('CSRF token masking', () => {
  it('masks differently each time and unmasks to the cookie token', () => {
    const t = Buffer.alloc(32, 7).toString('base64url');
    const a = maskToken(t);
    const b = maskToken(t);
    expect(a).not.toBe(b);
    expect(unmaskToken(a)).toBe(t);
    expect(unmaskToken(b)).toBe(t);
    expect(unmaskToken('short')).toBeUndefined();
    expect(unmaskToken('x'.repeat(500))).toBeUndefined();
  });
});

describe('password policy', () => {
  it.each([
    ['short1!', 4000032],
    ['password1', 4000034],
    ['Qwerty123', 4000034],
    ['iloveyou', 4000034],
    ['12345678', 4000034],
    ['a fine passphrase 7', null],
    ['Research-Demo-2026!', null],
    ['x'.repeat(63) + '1!', null],
    ['é'.repeat(7) + '1 ', null],
    ['x'.repeat(4097), 4000005],
    // The composition rule (ADR 0014): a digit and a special character, whichever way the password arrives.
    ['a fine passphrase', 4000005],
    ['NoDigitsHere!', 4000005],
    ['NoSpecial2026', 4000005],
    ['é'.repeat(8), 4000005],
    ['x'.repeat(64), 4000005],
  ])('%s → %s', (pw, id) => {
    expect(checkPasswordPolicy(pw)?.id ?? null).toBe(id);
  });
  it.each([
    ['NoDigitsHere!', 'it does not contain a number'],
    ['NoSpecial2026', 'it does not contain a special character'],
  ])('says why %s is refused', (pw, reason) => {
    expect(checkPasswordPolicy(pw)?.context).toEqual({ reason });
  });
  it('accepts each character of the special-character set, and nothing else counts as one', () => {
    for (const c of ' `!@#$%^&*()_+-=[]{};\':"\\|,.<>/?~') {
      expect(checkPasswordPolicy(`Abcdefg1${c}`), JSON.stringify(c)).toBeNull();
    }
    for (const c of ['é', '€', '§', '\t', '£']) {
      expect(checkPasswordPolicy(`Abcdefg1${c}`)?.id, JSON.stringify(c)).toBe(4000005);
    }
  });
  it('refuses the identifier itself', () => {
    expect(checkPasswordPolicy('someone@example.com', 'someone@example.com')?.id).toBe(4000031);
  });
});

describe('config', () => {
  it('has the development defaults', () => {
    const c = loadConfig({});
    expect(c.publicUrl).toBe('http://localhost:4433');
    expect(c.ui.login).toBe('http://localhost:4000/account/login');
    expect(c.allowedReturnUrls).toContain('http://localhost:4444');
    expect(c.sessionLifespanMs).toBe(86_400_000);
    expect(c.oauth2AdminUrl).toBe('http://localhost:4445');
  });
  it('sizes the per-IP code budget so that an office behind one NAT never reaches it by typos', () => {
    // 1,000 people behind one address, 1 % of whom mistype a code twice in a busy hour: 20 wrong
    // codes an hour. The default keeps at least ten times that in hand (docs/security.md).
    const officeMistakesPerHour = 1000 * 0.01 * 2;
    const c = loadConfig({});
    expect(c.codeLimits.ipWindowMs).toBe(3_600_000);
    expect(c.codeLimits.perIp).toBeGreaterThanOrEqual(10 * officeMistakesPerHour);
    // The limits that stop guessing stay tight: 5 per flow, 10 per address or account per hour.
    expect(c.codeLimits.perFlow).toBe(5);
    expect(c.codeLimits.perAddress).toBe(10);
    expect(c.totpLimits.perAccount).toBe(10);
  });
  it('parses durations and refuses junk', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('72h')).toBe(259_200_000);
    expect(() => parseDuration('1x')).toThrow();
    expect(() => parseDuration('')).toThrow();
    expect(() => loadConfig({ IDENTITY_SESSION_LIFESPAN: 'soon' })).toThrow();
    expect(() => loadConfig({ IDENTITY_PUBLIC_URL: 'not a url' })).toThrow();
  });
});
