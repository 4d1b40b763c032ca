import type { Kysely } from 'kysely';
import type { Clock } from '@acme/db/clock';
import type { Config } from './config.ts';
import type { IdentityDb } from './db/schema.ts';
import type { HydraClient } from './oauth2/hydra.ts';
import type { SessionCache } from './sessions/cache.ts';
import type { IdentityMetrics } from './metrics.ts';
import type { PasswordHasher } from './password/hasher.ts';

/**
 * Outbound mail (recovery and verification codes). Implementations queue durably (an outbox table);
 * pass the caller's transaction so the message commits with the flow change.
 */
export interface Mailer {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  enqueue(msg: { to: string; subject: string; text: string; html: string }, trx?: Kysely<any>): Promise<void>;
}

/** What every route handler needs; built once by `createApp`. */
export interface IdentityContext {
  config: Config;
  db: Kysely<IdentityDb>;
  clock: Clock;
  hydra: HydraClient;
  mailer: Mailer;
  /** Resolved sessions for whoami, evicted on the database's change notices. */
  sessionCache: SessionCache;
  /** Every password hash and verification goes through this bounded pool. */
  passwords: PasswordHasher;
  /** This instance's Prometheus registry and counters. */
  metrics: IdentityMetrics;
}
