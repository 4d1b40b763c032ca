import type { Migration } from '@acme/db';
import { rateLimitTableStatements } from '@acme/db/rate-limit';

/** The counters of the per-IP limit (`@acme/db/rate-limit`'s table, migrations 003–005). */
export const RATE_LIMIT_TABLE = 'agent_rate_limits';

/** Namespace `agent`: one statement per migration, applied in order, never edited once released. */
export const migrations: Migration[] = [
  {
    name: '001_unregistered_user_requests',
    sql: `create table agent_unregistered_user_requests (
      id uuid primary key,
      email text not null,
      name text not null,
      created_at timestamptz not null
    )`,
  },
  {
    name: '002_rate_limit_counters',
    sql: `create table agent_rate_limit_counters (
      key text not null,
      window_start timestamptz not null,
      count integer not null,
      primary key (key, window_start)
    )`,
  },
  { name: '003_rate_limits', sql: rateLimitTableStatements(RATE_LIMIT_TABLE)[0] },
  { name: '004_rate_limits_window_start', sql: rateLimitTableStatements(RATE_LIMIT_TABLE)[1] },
  // The repository's one rate limiter (`@acme/db/rate-limit`) replaces the counters of 002.
  { name: '005_rate_limit_counters_drop', sql: 'drop table agent_rate_limit_counters' },
];

export interface AgentDb {
  agent_unregistered_user_requests: { id: string; email: string; name: string; created_at: Date };
}
