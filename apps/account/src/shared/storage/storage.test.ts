// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registry } from './registry.ts';
import { adoptLocalStorageValue, read, remove, withCookie, write } from './storage.ts';

// Reading document.cookie is a synchronous round trip to the browser's cookie store: the reads of
// one run of script share one, and nothing read is ever older than that run or this module's writes.

const cookieGetter = Object.getOwnPropertyDescriptor(Document.prototype, 'cookie')!.get!;

function countCookieReads() {
  return vi.spyOn(Document.prototype, 'cookie', 'get').mockImplementation(function (this: Document) {
    return cookieGetter.call(this);
  });
}

afterEach(() => {
  vi.restoreAllMocks();
  remove(registry.loginChallenge);
  remove(registry.logoutState);
  remove(registry.locale);
  localStorage.clear();
});

describe('cookie reads', () => {
  it('reads the cookie store once for the entries one run of script reads', () => {
    const reads = countCookieReads();
    read(registry.loginChallenge);
    read(registry.oauth2Token);
    read(registry.logoutState);
    read(registry.cloudSignOutPending);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('writes nothing to the cookie store to remove an entry that is not there', () => {
    const writes = vi.spyOn(Document.prototype, 'cookie', 'set');
    remove(registry.loginChallenge);
    remove(registry.logoutState);
    expect(writes).not.toHaveBeenCalled();
  });

  it('sees its own write at once, in the same run', () => {
    expect(read(registry.loginChallenge)).toBeNull();
    write(registry.loginChallenge, 'challenge-1');
    expect(read(registry.loginChallenge)).toBe('challenge-1');
    remove(registry.loginChallenge);
    expect(read(registry.loginChallenge)).toBeNull();
  });

  it('asks the cookie store no more after its own writes in the same run (a read right after a write waits longest)', async () => {
    write(registry.logoutState, 'completed');
    await Promise.resolve();
    const reads = countCookieReads();
    expect(read(registry.logoutState)).toBe('completed');
    write(registry.loginChallenge, 'challenge-2');
    remove(registry.logoutState);
    expect(read(registry.loginChallenge)).toBe('challenge-2');
    expect(read(registry.logoutState)).toBeNull();
    expect(reads).toHaveBeenCalledTimes(1);
    // The next run asks again, and the browser agrees with what the run saw.
    await Promise.resolve();
    expect(read(registry.loginChallenge)).toBe('challenge-2');
    expect(read(registry.logoutState)).toBeNull();
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['', 'a', '1', 'a=1'],
    ['a=1', 'a', '2', 'a=2'],
    ['a=1; b=2', 'a', null, 'b=2'],
    ['b=2; a=1; c=3', 'a', '9', 'b=2; c=3; a=9'],
    ['ab=1; a=2', 'a', null, 'ab=1'],
    ['a=1', 'b', null, 'a=1'],
    ['x=a=b; a=1', 'x', 'y', 'a=1; x=y'],
  ])('withCookie(%j, %j, %j) is %j', (before, name, value, after) => {
    expect(withCookie(before, name, value)).toBe(after);
  });

  it('sees a cookie set elsewhere (a response, another tab) from the next script on', async () => {
    expect(read(registry.loginChallenge)).toBeNull();
    document.cookie = `login_challenge=${encodeURIComponent(JSON.stringify('from-elsewhere'))}; Path=/`;
    await Promise.resolve();
    expect(read(registry.loginChallenge)).toBe('from-elsewhere');
  });
});

describe('the language setting, kept where the account app server sees it', () => {
  it('is a cookie of this origin only, kept across visits', () => {
    const writes = vi.spyOn(Document.prototype, 'cookie', 'set');
    write(registry.locale, 'de');
    const cookie = String(writes.mock.calls[0]![0]);
    expect(cookie).toMatch(/^locale=%22de%22; Path=\/; SameSite=Lax; Max-Age=\d{8}/);
    expect(cookie).not.toContain('Domain=');
    expect(read(registry.locale)).toBe('de');
    expect(localStorage.getItem('locale')).toBeNull();
  });

  it('an earlier version’s local storage value moves into the cookie once, and a cookie already there wins', () => {
    localStorage.setItem('locale', '"de"');
    adoptLocalStorageValue(registry.locale);
    expect(read(registry.locale)).toBe('de');
    expect(localStorage.getItem('locale')).toBeNull();

    write(registry.locale, 'en');
    localStorage.setItem('locale', '"de"');
    adoptLocalStorageValue(registry.locale);
    expect(read(registry.locale)).toBe('en');
    expect(localStorage.getItem('locale')).toBeNull();
  });

  it('a malformed local storage value is dropped, never moved', () => {
    for (const stored of ['de', '"fr"', '{"__proto__":{"x":1}}', '']) {
      localStorage.setItem('locale', stored);
      adoptLocalStorageValue(registry.locale);
      expect(read(registry.locale), stored).toBeNull();
      expect(localStorage.getItem('locale'), stored).toBeNull();
    }
  });

  it('stays in local storage in the team client, which blocks the cookie', () => {
    localStorage.setItem('isTeams', 'true');
    localStorage.setItem('locale', '"de"');
    adoptLocalStorageValue(registry.locale);
    expect(localStorage.getItem('locale')).toBe('"de"');
    expect(read(registry.locale)).toBe('de');
  });
});
