import type { Kysely } from 'kysely';
import type { Clock } from '@acme/db/clock';
import type { Config } from './config.ts';
import type { IdentityDb } from './db/schema.ts';
import type { HydraClient } from './oauth2/hydra.ts';

/** What every route handler needs; built once by `createApp`. */
export interface Ctx {
  config: Config;
  db: Kysely<IdentityDb>;
  clock: Clock;
  hydra: HydraClient;
}
