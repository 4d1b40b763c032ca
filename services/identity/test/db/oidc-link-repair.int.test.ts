import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, type Database } from '@acme/db';
import { createMemoryMailer } from '@acme/mail';
import { freePort } from '@acme/test-kit/free-port';
import { migrations as usersMigrations } from '@acme/users';
import { start as startIdentity } from '../../src/index.ts';
import { migrations } from '../../src/migrations.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// Issue 20, item 2's repair for item 4: links made before links were keyed by the provider's record
// (organisation + issuer). The one-off migration 220 re-keys a link whose provider still belongs to
// the identity's organisation, removes the others (provider deleted, or its id taken by another
// organisation) and lists every finding for the operator's report (GET /admin/oidc/link-repairs).

const REPAIR = '221_oidc_links_by_provider_record';

describe('migration 220: SSO links of deleted or taken-over providers are listed and removed', () => {
  let db: Database;
  let adminUrl: string;
  let close: () => Promise<void>;
  const globex = randomUUID();
  const initech = randomUUID();
  const ids = { rekeyed: randomUUID(), deleted: randomUUID(), takenOver: randomUUID(), both: randomUUID() };

  beforeAll(async () => {
    db = await createTestDb();
    const k = db.kysely as any;
    await migrate(db, 'users', usersMigrations);
    await migrate(
      db,
      'identity',
      migrations.filter((m) => !m.name.startsWith(REPAIR)),
    );
    const now = new Date();
    for (const [id, name] of [
      [globex, 'Globex'],
      [initech, 'Initech'],
    ]) {
      await k
        .insertInto('organisations')
        .values({ id, name, subscription_status: 'subscribed', created_at: now })
        .execute();
    }
    const provider = (provider_id: string, organisation_id: string, issuer: string) => ({
      provider_id,
      organisation_id,
      issuer,
      client_id: 'c',
      client_secret_enc: 'x',
      scopes: JSON.stringify(['openid']),
      claim_mapping: JSON.stringify({}),
      jit: true,
      userinfo: false,
      created_at: now,
      updated_at: now,
    });
    // Globex's own provider; `shared` was Globex's once, and Initech took the freed id.
    await k
      .insertInto('sso_providers')
      .values([
        provider('globex', globex, 'https://idp.globex.test'),
        provider('shared', initech, 'https://idp.initech.test'),
      ])
      .execute();
    const links: Record<string, string[]> = {
      [ids.rekeyed]: ['globex:s1'],
      [ids.deleted]: ['gone:s2'],
      [ids.takenOver]: ['shared:s3'],
      [ids.both]: ['globex:s4', 'gone:s4'],
    };
    for (const [identityId, identifiers] of Object.entries(links)) {
      await k
        .insertInto('identity_identities')
        .values({
          id: identityId,
          schema_id: 'default',
          state: 'active',
          traits: JSON.stringify({ email: `${identityId}@globex.test` }),
          state_changed_at: now,
          created_at: now,
          updated_at: now,
        })
        .execute();
      await k
        .insertInto('users')
        .values({
          id: randomUUID(),
          organisation_id: globex,
          email: `${identityId}@globex.test`,
          first_name: 'A',
          last_name: 'B',
          role: 'member',
          identity_id: identityId,
          created_at: now,
        })
        .execute();
      const providers = identifiers.map((i) => ({ provider: i.split(':')[0], subject: i.split(':')[1] }));
      await k
        .insertInto('identity_credentials')
        .values({
          id: randomUUID(),
          identity_id: identityId,
          type: 'oidc',
          config: JSON.stringify({ providers }),
          version: 0,
          created_at: now,
          updated_at: now,
        })
        .execute();
      for (const identifier of identifiers) {
        await k
          .insertInto('identity_credential_identifiers')
          .values({ identifier, type: 'oidc', identity_id: identityId })
          .execute();
      }
    }
    // The service starts: its migrations run, the repair among them.
    const [pub, adm] = await Promise.all([freePort(), freePort()]);
    adminUrl = `http://localhost:${adm}`;
    const identity = await startIdentity({
      db,
      logger: false,
      mailer: createMemoryMailer(),
      env: {
        IDENTITY_PUBLIC_PORT: String(pub),
        IDENTITY_ADMIN_PORT: String(adm),
        IDENTITY_MANAGEMENT_PORT: '0',
        IDENTITY_PUBLIC_URL: `http://localhost:${pub}`,
        IDENTITY_ADMIN_URL: adminUrl,
        LOG_LEVEL: 'silent',
      },
    });
    close = identity.close;
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await db.close();
  });

  const identifiers = async (identityId: string) =>
    (
      await (db.kysely as any)
        .selectFrom('identity_credential_identifiers')
        .select('identifier')
        .where('identity_id', '=', identityId)
        .where('type', '=', 'oidc')
        .orderBy('identifier')
        .execute()
    ).map((r: any) => r.identifier as string);
  const config = async (identityId: string) =>
    (
      await (db.kysely as any)
        .selectFrom('identity_credentials')
        .select('config')
        .where('identity_id', '=', identityId)
        .where('type', '=', 'oidc')
        .executeTakeFirst()
    )?.config;

  it('removes the links of a deleted provider and of a provider id another organisation took', async () => {
    expect(await identifiers(ids.deleted)).toEqual([]);
    expect(await identifiers(ids.takenOver)).toEqual([]);
    expect(await config(ids.deleted)).toBeUndefined();
    expect(await config(ids.takenOver)).toBeUndefined();
  });

  it('re-keys a link whose provider still belongs to the identity’s organisation', async () => {
    expect(await identifiers(ids.rekeyed)).toEqual([`${globex}:https://idp.globex.test#s1`]);
    expect(await config(ids.rekeyed)).toEqual({
      providers: [
        { provider: 'globex', organisationId: globex, issuer: 'https://idp.globex.test', subject: 's1' },
      ],
    });
    expect(await identifiers(ids.both)).toEqual([`${globex}:https://idp.globex.test#s4`]);
    expect((await config(ids.both)).providers).toHaveLength(1);
  });

  it('lists every finding for the report (admin API)', async () => {
    const res = await fetch(`${adminUrl}/admin/oidc/link-repairs`);
    expect(res.status).toBe(200);
    const { repairs } = (await res.json()) as { repairs: any[] };
    const findings = repairs.map((r) => [r.identity_id, r.provider, r.subject, r.finding]);
    expect(findings.sort()).toEqual(
      [
        [ids.rekeyed, 'globex', 's1', 'rekeyed'],
        [ids.deleted, 'gone', 's2', 'provider_deleted'],
        [ids.takenOver, 'shared', 's3', 'provider_of_another_organisation'],
        [ids.both, 'globex', 's4', 'rekeyed'],
        [ids.both, 'gone', 's4', 'provider_deleted'],
      ].sort(),
    );
  });
});
