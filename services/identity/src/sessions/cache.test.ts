import { describe, expect, it } from 'vitest';
import { FakeClock } from '@acme/db/clock';
import type { SessionRow } from '../db/schema.ts';
import type { LoadedIdentity } from '../identities/repo.ts';
import { SessionCache } from './cache.ts';
import type { ActiveSession } from './repo.ts';

const T0 = new Date('2026-03-01T10:00:00.000Z').getTime();

function session(identityId: string, expiresInMs = 3_600_000): ActiveSession {
  return {
    row: {
      id: `s-${identityId}`,
      identity_id: identityId,
      expires_at: new Date(T0 + expiresInMs),
    } as SessionRow,
    identity: { row: { id: identityId } } as LoadedIdentity,
  };
}

function cache(opts: { ttlMs?: number; maxEntries?: number } = {}) {
  const clock = new FakeClock(T0);
  const c = new SessionCache({ ttlMs: opts.ttlMs ?? 30_000, maxEntries: opts.maxEntries ?? 100, clock });
  c.listening(true);
  return { c, clock };
}

describe('SessionCache', () => {
  it('serves a stored session until the TTL has passed', () => {
    const { c, clock } = cache({ ttlMs: 30_000 });
    const s = session('i1');
    c.set('h1', s, c.ticket());
    clock.advance(29_999);
    expect(c.get('h1')).toBe(s);
    clock.advance(1);
    expect(c.get('h1')).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it('never serves a session past its own expiry, even within the TTL', () => {
    const { c, clock } = cache({ ttlMs: 60_000 });
    c.set('h1', session('i1', 10_000), c.ticket());
    clock.advance(9_999);
    expect(c.get('h1')).toBeDefined();
    clock.advance(1);
    expect(c.get('h1')).toBeUndefined();
  });

  it('does not store an already expired session', () => {
    const { c } = cache();
    c.set('h1', session('i1', 0), c.ticket());
    expect(c.size).toBe(0);
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const { c } = cache({ maxEntries: 2 });
    c.set('h1', session('i1'), c.ticket());
    c.set('h2', session('i2'), c.ticket());
    expect(c.get('h1')).toBeDefined(); // h2 is now the least recently used
    c.set('h3', session('i3'), c.ticket());
    expect(c.size).toBe(2);
    expect(c.get('h2')).toBeUndefined();
    expect(c.get('h1')).toBeDefined();
    expect(c.get('h3')).toBeDefined();
  });

  it('evicts every session of an identity on its notice, and only those', () => {
    const { c } = cache();
    c.set('h1', session('i1'), c.ticket());
    c.set('h1b', session('i1'), c.ticket());
    c.set('h2', session('i2'), c.ticket());
    c.notice('i1');
    expect(c.get('h1')).toBeUndefined();
    expect(c.get('h1b')).toBeUndefined();
    expect(c.get('h2')).toBeDefined();
    c.notice('*');
    expect(c.size).toBe(0);
  });

  it('does not store a read that overlapped an eviction (it may predate the change)', () => {
    const { c } = cache();
    const ticket = c.ticket();
    c.notice('i1'); // a change committed while the database read was in flight
    c.set('h1', session('i1'), ticket);
    expect(c.size).toBe(0);
    c.set('h1', session('i1'), c.ticket());
    expect(c.size).toBe(1);
  });

  it('caches nothing until listening, and forgets everything when listening stops', () => {
    const clock = new FakeClock(T0);
    const c = new SessionCache({ ttlMs: 30_000, maxEntries: 100, clock });
    expect(c.enabled).toBe(false);
    c.set('h1', session('i1'), c.ticket());
    expect(c.size).toBe(0);
    c.listening(true);
    const before = c.ticket();
    c.set('h1', session('i1'), before);
    expect(c.get('h1')).toBeDefined();
    c.listening(false);
    expect(c.enabled).toBe(false);
    expect(c.size).toBe(0);
    c.set('h1', session('i1'), c.ticket());
    expect(c.size).toBe(0);
    // A read begun before the connection was lost is not stored after listening resumes either.
    c.listening(true);
    c.set('h1', session('i1'), before);
    expect(c.size).toBe(0);
  });

  it('is off with a TTL of 0', () => {
    const { c } = cache({ ttlMs: 0 });
    expect(c.enabled).toBe(false);
    c.set('h1', session('i1'), c.ticket());
    expect(c.size).toBe(0);
  });
});
