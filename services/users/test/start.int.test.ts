import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@acme/db';
import type { Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { loadConfig, start } from '../src/index.ts';
import { createMemoryMailer } from '@acme/mail';
import { startIdentityUnderTest } from './identity-stack.ts';
import { http } from './harness.ts';

describe('start()', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDb();
  });
  afterAll(() => db.close());

  it('migrates, listens on the configured ports and closes', async () => {
    const [publicPort, adminPort, managementPort] = [await freePort(), await freePort(), await freePort()];
    const env = {
      USERS_PUBLIC_PORT: String(publicPort),
      USERS_ADMIN_PORT: String(adminPort),
      USERS_MANAGEMENT_PORT: String(managementPort),
    };
    const service = await start({ db, env, logger: false });
    try {
      expect(service.urls).toEqual({
        public: `http://localhost:${publicPort}`,
        admin: `http://localhost:${adminPort}`,
        management: `http://localhost:${managementPort}`,
      });
      expect((await fetch(`http://127.0.0.1:${managementPort}/health/ready`)).status).toBe(200);
      const config = await http(`http://127.0.0.1:${publicPort}/login/config?emailAddress=a@b.test`);
      expect(config.status).toBe(200);
      const orgs = await http(`http://127.0.0.1:${adminPort}/admin/organisations`);
      expect(orgs.body).toEqual({ organisations: [] });
      for (const port of [publicPort, adminPort]) {
        for (const probe of ['alive', 'ready']) {
          const res = await http(`http://127.0.0.1:${port}/health/${probe}`);
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ status: 'ok' });
        }
      }
    } finally {
      await service.close();
    }
    // A second start on the same database finds its migrations applied.
    const again = await start({ db, env, logger: false });
    await again.close();
  });

  it('reads the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      publicPort: 4455,
      adminPort: 4456,
      identityAdminUrl: 'http://localhost:4434',
      oauth2AdminUrl: 'http://localhost:4445',
      appOrigins: ['http://localhost:4000', 'http://localhost:4001'],
      mfaGraceDays: 14,
      loginConfigRateLimit: 30,
      loginConfigRateWindowSeconds: 60,
    });
    expect(loadConfig({ APP_ORIGINS: 'https://a.example, https://b.example/' }).appOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
    // The authorization server's `client_id=origin` form works too, so one variable serves all.
    expect(
      loadConfig({ APP_ORIGINS: 'platform=http://localhost:4000,magic=http://localhost:4001' }).appOrigins,
    ).toEqual(['http://localhost:4000', 'http://localhost:4001']);
    expect(() => loadConfig({ USERS_PUBLIC_PORT: 'abc' })).toThrow(/USERS_PUBLIC_PORT/);
    expect(() => loadConfig({ APP_ORIGINS: 'not a url' })).toThrow();
  });

  it('reads the documented defaults for invitations, terms and the source-code host', () => {
    expect(loadConfig({})).toMatchObject({
      identityPublicUrl: 'http://localhost:4433',
      appBaseUrl: 'http://localhost:4000',
      appName: 'Platform',
      invitationTtlHours: 72,
      invitationStatusRateLimit: 30,
      invitationStatusRateWindowSeconds: 60,
      terms: { version: '2026-01', url: 'http://localhost:4000/account/terms' },
      privacy: { version: '2026-01', url: 'http://localhost:4000/account/privacy' },
      git: {
        authorizeUrl: 'http://localhost:4500/github/login/oauth/authorize',
        tokenUrl: 'http://localhost:4500/github/login/oauth/access_token',
        apiUrl: 'http://localhost:4500/github/api',
        clientId: 'dev-client',
        clientSecret: 'dev-secret',
        scope: 'read:user',
      },
    });
    expect(() => loadConfig({ TERMS_VERSION: 'has spaces' })).toThrow(/TERMS_VERSION/);
    expect(() => loadConfig({ INVITATION_TTL_HOURS: '0' })).toThrow(/INVITATION_TTL_HOURS/);
  });

  it('takes a mailer: invitation mail goes to it', async () => {
    const identity = await startIdentityUnderTest();
    const mailer = createMemoryMailer();
    const [publicPort, adminPort] = [await freePort(), await freePort()];
    const service = await start({
      db,
      logger: false,
      mailer,
      env: {
        USERS_PUBLIC_PORT: String(publicPort),
        USERS_ADMIN_PORT: String(adminPort),
        USERS_MANAGEMENT_PORT: '0',
        IDENTITY_ADMIN_URL: identity.adminUrl,
      },
    });
    try {
      const admin = `http://127.0.0.1:${adminPort}`;
      const org = await http(`${admin}/admin/organisations`, {
        method: 'POST',
        json: { name: 'Mailco', domains: ['mail.test'], products: [] },
      });
      const inv = await http(`${admin}/admin/invitations`, {
        method: 'POST',
        json: {
          organisationId: (org.body as { id: string }).id,
          email: 'm@mail.test',
          firstName: 'M',
          lastName: 'N',
          role: 'member',
        },
      });
      expect(inv.status).toBe(201);
      expect(mailer.messages.map((m) => m.to)).toEqual(['m@mail.test']);
    } finally {
      await service.close();
      await identity.close();
    }
  });
});
