import { createTestDb, type Database } from '@acme/db';
import type { FakeClock } from '@acme/db/clock';
import { startOrgIdp, type OrgIdp } from '@acme/dev';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '../src/index.ts';
import { startAuthStack, type AuthStackUrls } from './auth-stack.ts';
import { AdvancingClock } from './console/console-harness.ts';
import { Jar } from './jar.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The whole sign-in platform for the account lifecycle model: our real authorization server,
 * identity service and user service in process on one database (as `npm start` runs them, the
 * identity service asking the user service about sign-up, SSO and members), the organisation IdP
 * stand-in, and one mailbox that every service mails to (the owner of an address reads it; a
 * stranger never does).
 */

export const APP_ORIGIN = 'http://localhost:4000';

export interface LifecycleStack {
  db: Database;
  urls: AuthStackUrls & { users: string; usersAdmin: string };
  idp: OrgIdp;
  clock: FakeClock;
  /** Every mail any service sent, oldest first. */
  mail: { to: string; text: string }[];
  /** A JSON call to the user service's admin API (the operator). */
  operator(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

// The model makes many sign-ins, failed ones included, from one address: the limits that would
// lock it out are raised (each has its own test elsewhere).
const LIMITS = {
  IDENTITY_LOCKOUT_THRESHOLD: '100000',
  IDENTITY_IP_FAILURE_LIMIT: '100000',
  IDENTITY_CODE_MAIL_LIMIT: '100000',
  IDENTITY_CODE_IP_LIMIT: '100000',
  IDENTITY_REGISTRATION_IP_LIMIT: '100000',
};

// The organisation's IdP is the stand-in on loopback, which the SSRF guard refuses by default.
const IDP_ON_LOOPBACK = {
  IDENTITY_SSO_HTTP_HOSTS: 'localhost,127.0.0.1',
  IDENTITY_SSO_ALLOW_PRIVATE: 'true',
};

export async function startLifecycleStack(): Promise<LifecycleStack> {
  const db = await createTestDb();
  const closers: (() => Promise<void>)[] = [];
  // Real time plus what the model advanced it by (past the identity service's 30 s policy caches).
  const clock = new AdvancingClock();
  const mailer = createMemoryMailer();
  const [usersPublic, usersAdmin] = await Promise.all([freePort(), freePort()]);
  const usersAdminUrl = `http://localhost:${usersAdmin}`;
  const idp = await startOrgIdp({ port: 0, users: [], clients: [] });
  closers.push(() => idp.close());
  const auth = await startAuthStack(db, closers, {
    appOrigin: APP_ORIGIN,
    usersAdminUrl,
    identityMailer: mailer,
    identityClock: clock,
    identityEnv: { USERS_ADMIN_URL: usersAdminUrl, ...LIMITS, ...IDP_ON_LOOPBACK },
  });
  const users = await startUsers({
    db,
    logger: false,
    mailer,
    env: {
      USERS_PUBLIC_PORT: String(usersPublic),
      USERS_ADMIN_PORT: String(usersAdmin),
      USERS_MANAGEMENT_PORT: '0',
      IDENTITY_ADMIN_URL: auth.identityAdmin,
      IDENTITY_PUBLIC_URL: auth.identityPublic,
      OAUTH2_ADMIN_URL: auth.oauth2Admin,
      CONSOLE_RATE_LIMIT_PER_TOKEN: '100000',
      CONSOLE_RATE_LIMIT_PER_IP: '100000',
      INVITATION_STATUS_RATE_LIMIT: '100000',
      LOGIN_CONFIG_RATE_LIMIT: '100000',
    },
  });
  closers.push(users.close);
  const urls = { ...auth, users: users.urls.public!, usersAdmin: users.urls.admin! };
  return {
    db,
    urls,
    idp,
    clock,
    mail: mailer.messages,
    async operator(method, path, json) {
      const { res, body } = await new Jar().fetch(`${urls.usersAdmin}${path}`, {
        method,
        ...(json === undefined ? {} : { json }),
      });
      return { status: res.status, body };
    },
    async close() {
      for (const close of closers.reverse()) await close().catch(() => undefined);
      await db.close();
    },
  };
}
