import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '@acme/db';
import type { Clock } from '@acme/db/clock';
import type { Mailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { start as startIdentity } from '@acme/identity';
import { start as startOAuth2 } from '@acme/oauth2';

/** Base URLs of the real authorization server and identity service started by `startAuthStack`. */
export interface AuthStackUrls {
  identityPublic: string;
  identityAdmin: string;
  issuer: string;
  oauth2Admin: string;
}

/**
 * Our real authorization server, then identity service, in process on `db` and free ports, as
 * `npm start` runs them. Their `close` functions are appended to `closers` (close in reverse).
 */
export async function startAuthStack(
  db: Database,
  closers: (() => Promise<void>)[],
  options: {
    appOrigin: string;
    identityMailer?: Mailer;
    identityClock?: Clock;
    usersAdminUrl?: string;
    oauth2Env?: Record<string, string>;
    identityEnv?: Record<string, string>;
  },
): Promise<AuthStackUrls> {
  const [idPublic, idAdmin, oaPublic, oaAdmin] = await Promise.all(
    Array.from({ length: 4 }, () => freePort()),
  );
  const urls: AuthStackUrls = {
    identityPublic: `http://localhost:${idPublic}`,
    identityAdmin: `http://localhost:${idAdmin}`,
    issuer: `http://localhost:${oaPublic}`,
    oauth2Admin: `http://localhost:${oaAdmin}`,
  };
  const oauth2 = await startOAuth2({
    db,
    logger: false,
    env: {
      OAUTH2_PUBLIC_URL: urls.issuer,
      OAUTH2_PUBLIC_PORT: String(oaPublic),
      OAUTH2_ADMIN_PORT: String(oaAdmin),
      OAUTH2_MANAGEMENT_PORT: '0',
      // With the user service's admin API, first-party clients skip consent and refreshes re-check.
      ...(options.usersAdminUrl ? { USERS_ADMIN_URL: options.usersAdminUrl } : {}),
      ...options.oauth2Env,
    },
  });
  closers.push(oauth2.close);
  const identity = await startIdentity({
    db,
    logger: false,
    ...(options.identityMailer ? { mailer: options.identityMailer } : {}),
    ...(options.identityClock ? { clock: options.identityClock } : {}),
    env: {
      IDENTITY_PUBLIC_PORT: String(idPublic),
      IDENTITY_ADMIN_PORT: String(idAdmin),
      IDENTITY_MANAGEMENT_PORT: '0',
      // The pool's lowered priority would outlive this file in the shared test worker, and on a busy
      // machine starve the next file's hashing (services/identity/src/config.ts IDENTITY_HASH_NICE).
      IDENTITY_HASH_NICE: '0',
      IDENTITY_PUBLIC_URL: urls.identityPublic,
      IDENTITY_ADMIN_URL: urls.identityAdmin,
      OAUTH2_ADMIN_URL: urls.oauth2Admin,
      IDENTITY_ALLOWED_RETURN_URLS: `${options.appOrigin},${urls.issuer}`,
      LOG_LEVEL: 'silent',
      ...options.identityEnv,
    },
  });
  closers.push(identity.close);
  return urls;
}

/** The app's authorization request (client `platform`, PKCE S256) and its code verifier. */
export function platformAuthorizeUrl(issuer: string, appOrigin: string): { url: string; verifier: string } {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${issuer}/oauth2/auth`);
  for (const [k, v] of Object.entries({
    client_id: 'platform',
    response_type: 'code',
    redirect_uri: `${appOrigin}/account/callback`,
    scope: 'openid offline_access',
    state: randomBytes(12).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })) {
    authorize.searchParams.set(k, v);
  }
  return { url: authorize.toString(), verifier };
}
