import type { Clock } from '@acme/db/clock';
import type { ActiveSession } from './repo.ts';

/**
 * The PostgreSQL channel on which every change that can alter a whoami answer is announced. Triggers
 * (migration `210_session_notices`) send the identity's id as payload, or `*` for "everything", from
 * inside the writing transaction, so a notice is seen only once the change is committed.
 */
export const SESSION_CHANGES_CHANNEL = 'identity_session_changes';

export interface SessionCacheOptions {
  /** How long a resolved session may be served from memory; 0 turns the cache off. */
  ttlMs: number;
  /** At most this many sessions are kept; the least recently used one goes first. */
  maxEntries: number;
  clock: Clock;
}

interface Entry {
  session: ActiveSession;
  /** The earlier of (stored + TTL) and the session's own expiry, in epoch ms. */
  until: number;
}

/**
 * Resolved sessions by SHA-256 token hash (never the token itself), bounded (LRU) and short-lived.
 *
 * It is only correct while change notices arrive, so it stores nothing until `listening(true)` and
 * forgets everything on `listening(false)`. A lookup that started before a notice (or before a lost
 * connection) must not store what it read, since it may predate the change: `ticket()` taken before the
 * database read and passed to `set` detects that, as every eviction moves the generation on.
 */
export class SessionCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byIdentity = new Map<string, Set<string>>();
  private generation = 0;
  private live = false;
  readonly stats = { hits: 0, misses: 0, evictions: 0 };

  private readonly opts: SessionCacheOptions;
  constructor(opts: SessionCacheOptions) {
    this.opts = opts;
  }

  get enabled(): boolean {
    return this.live && this.opts.ttlMs > 0 && this.opts.maxEntries > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached session for a token hash, if still fresh and unexpired; refreshes its LRU place. */
  get(tokenHash: string): ActiveSession | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) {
      this.stats.misses++;
      return undefined;
    }
    if (this.opts.clock.now().getTime() >= entry.until) {
      this.remove(tokenHash, entry);
      this.stats.misses++;
      return undefined;
    }
    this.entries.delete(tokenHash);
    this.entries.set(tokenHash, entry);
    this.stats.hits++;
    return entry.session;
  }

  /** Take before reading the database; pass to `set` with what was read. */
  ticket(): number {
    return this.generation;
  }

  set(tokenHash: string, session: ActiveSession, ticket: number): void {
    if (!this.enabled || ticket !== this.generation) return;
    const now = this.opts.clock.now().getTime();
    const until = Math.min(now + this.opts.ttlMs, session.row.expires_at.getTime());
    if (until <= now) return;
    const old = this.entries.get(tokenHash);
    if (old) this.remove(tokenHash, old);
    this.entries.set(tokenHash, { session, until });
    const id = session.row.identity_id;
    let keys = this.byIdentity.get(id);
    if (!keys) this.byIdentity.set(id, (keys = new Set()));
    keys.add(tokenHash);
    while (this.entries.size > this.opts.maxEntries) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.remove(oldest, entry);
    }
  }

  /** Forgets every session of the identity (any change to it, its sessions, addresses or credentials). */
  evictIdentity(identityId: string): void {
    this.generation++;
    const keys = this.byIdentity.get(identityId);
    if (!keys) return;
    for (const k of keys) {
      this.entries.delete(k);
      this.stats.evictions++;
    }
    this.byIdentity.delete(identityId);
  }

  clear(): void {
    this.generation++;
    this.stats.evictions += this.entries.size;
    this.entries.clear();
    this.byIdentity.clear();
  }

  /** A change notice's payload: an identity id, or `*` for all. */
  notice(payload: string): void {
    if (payload === '*') this.clear();
    else this.evictIdentity(payload);
  }

  /** Whether change notices are being received; without them nothing is cached. */
  listening(on: boolean): void {
    this.clear();
    this.live = on;
  }

  private remove(tokenHash: string, entry: Entry): void {
    this.entries.delete(tokenHash);
    const id = entry.session.row.identity_id;
    const keys = this.byIdentity.get(id);
    keys?.delete(tokenHash);
    if (keys?.size === 0) this.byIdentity.delete(id);
  }
}
