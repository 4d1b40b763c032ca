import { describe, expect, it } from 'vitest';
import { adminAccess, checkAdminRequest, hostnameOf, isLoopback } from './admin-access.ts';

const KEY = 'an-admin-key-that-is-long-enough-0001';

describe('admin access', () => {
  it('an admin API bound beyond loopback without a key is refused at start-up', () => {
    expect(() => adminAccess('X', { host: '0.0.0.0', keys: undefined, allowedHosts: [] })).toThrow(
      /X_ADMIN_KEY/,
    );
    expect(() => adminAccess('X', { host: '10.0.0.5', keys: undefined, allowedHosts: [] })).toThrow();
    expect(adminAccess('X', { host: '0.0.0.0', keys: [KEY], allowedHosts: [] }).host).toBe('0.0.0.0');
    expect(adminAccess('X', { host: '127.0.0.1', keys: undefined, allowedHosts: [] }).keys).toBeUndefined();
  });

  it.each([
    ['localhost:4434', true],
    ['127.0.0.1', true],
    ['127.0.0.1:4434', true],
    ['[::1]:4434', true],
    ['LOCALHOST', true],
    ['admin.internal:4434', true],
    ['attacker.example', false],
    ['localhost.attacker.example', false],
    ['127.0.0.1.nip.io', false],
    ['', false],
  ])('DNS rebinding: Host %s allowed=%s', (host, allowed) => {
    const access = adminAccess('X', { host: '127.0.0.1', keys: undefined, allowedHosts: ['admin.internal'] });
    const refusal = checkAdminRequest(access, { url: '/admin/x', headers: host ? { host } : {} });
    expect(refusal === undefined).toBe(allowed);
    if (!allowed) expect(refusal?.status).toBe(403);
  });

  it('admin API requests without the bearer key are refused when a key is configured', () => {
    const access = adminAccess('X', { host: '0.0.0.0', keys: [KEY], allowedHosts: [] });
    const req = (authorization?: string, url = '/admin/x') => ({
      url,
      headers: { host: 'localhost', ...(authorization ? { authorization } : {}) },
    });
    expect(checkAdminRequest(access, req())?.status).toBe(401);
    expect(checkAdminRequest(access, req(`Bearer ${KEY}0`))?.status).toBe(401);
    expect(checkAdminRequest(access, req(`Basic ${KEY}`))?.status).toBe(401);
    expect(checkAdminRequest(access, req(`Bearer ${KEY}`))).toBeUndefined();
    expect(checkAdminRequest(access, req(`bearer ${KEY}`))).toBeUndefined();
    expect(checkAdminRequest(access, req(undefined, '/health/alive'))).toBeUndefined();
    // A wildcard bind address is never a valid Host by itself.
    expect(
      checkAdminRequest(access, {
        url: '/admin/x',
        headers: { host: '0.0.0.0', authorization: `Bearer ${KEY}` },
      })?.status,
    ).toBe(403);
  });

  it('an old admin key dropped from the list is refused (401); while listed, old and new are both accepted', () => {
    const NEXT = 'the-next-admin-key-that-is-long-enough-02';
    const req = (key: string) => ({
      url: '/admin/x',
      headers: { host: 'localhost', authorization: `Bearer ${key}` },
    });
    const both = adminAccess('X', { host: '0.0.0.0', keys: [NEXT, KEY], allowedHosts: [] });
    expect(checkAdminRequest(both, req(KEY))).toBeUndefined();
    expect(checkAdminRequest(both, req(NEXT))).toBeUndefined();
    const dropped = adminAccess('X', { host: '0.0.0.0', keys: [NEXT], allowedHosts: [] });
    expect(checkAdminRequest(dropped, req(KEY))?.status).toBe(401);
    expect(checkAdminRequest(dropped, req(NEXT))).toBeUndefined();
  });

  it('parses host names and recognises loopback', () => {
    expect(hostnameOf('[::1]:80')).toBe('::1');
    expect(hostnameOf('Example.COM:8080')).toBe('example.com');
    expect(isLoopback('127.10.0.1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
  });
});
