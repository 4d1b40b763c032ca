import type { Migration } from '@acme/db';

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
];

export interface AgentDb {
  agent_unregistered_user_requests: { id: string; email: string; name: string; created_at: Date };
  agent_rate_limit_counters: { key: string; window_start: Date; count: number };
}
