import type { Clock } from '@acme/db/clock';
import type { Mailer } from '@acme/mail';
import type { Kysely } from 'kysely';
import type { GitHostClient } from './clients/git-host.ts';
import type { IdentityAdminClient } from './clients/identity-admin.ts';
import type { IdentityPublicClient } from './clients/identity-public.ts';
import type { OAuth2AdminClient } from './clients/oauth2-admin.ts';
import type { OAuth2ClientsAdmin } from './clients/oauth2-clients.ts';
import type { Config } from './config.ts';
import type { UsersDb } from './db-types.ts';
import type { SecretBox } from '@acme/service-kit/secret-box';

/** The user service's context: what route modules need, built once by `createApp` (tests inject a fake clock and clients). */
export interface UsersContext {
  config: Config;
  db: Kysely<UsersDb>;
  clock: Clock;
  identityAdmin: IdentityAdminClient;
  oauth2Admin: OAuth2AdminClient;
  /** The authorization server's client API (API clients). */
  oauth2Clients: OAuth2ClientsAdmin;
  identityPublic: IdentityPublicClient;
  gitHost: GitHostClient;
  /** The outbox invitation mail goes through. */
  mailer: Mailer;
  /** Encrypts SSO client secrets at rest. */
  secretBox: SecretBox;
}
