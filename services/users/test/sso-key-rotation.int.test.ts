import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, typed, type Database } from '@acme/db';
import { createSecretBox } from '@acme/service-kit/secret-box';
import type { UsersDb } from '../src/db-types.ts';
import { resealSsoSecrets } from '../src/sso/reseal.ts';
import { http, runCliJson, startTestService, type TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// SSO_SECRET_KEY rotated: the organisations' SSO client secrets sealed under the old key are sealed
// again under the first key of the list (what each instance does at start), so the old key can go.
const OLD = 'old-sso-secret-key-0123456789abcdef0123';
const NEW = 'new-sso-secret-key-0123456789abcdef0123';

describe('SSO_SECRET_KEY rotation', () => {
  let db: Database;
  const services: TestUsersService[] = [];
  afterAll(async () => {
    for (const s of services) await s.close();
    await db?.close();
  });
  const start = async (key: string) => {
    const s = await startTestService({ db, env: { SSO_SECRET_KEY: key } });
    services.push(s);
    return s;
  };
  const stored = async () =>
    (
      await typed<UsersDb>(db)
        .selectFrom('sso_providers')
        .select('client_secret_enc')
        .executeTakeFirstOrThrow()
    ).client_secret_enc!;
  const clientSecret = async (s: TestUsersService) => {
    const res = await http(`${s.adminUrl}/admin/sso/providers/globex`);
    return { status: res.status, secret: (res.body as any).clientSecret as string | undefined };
  };

  it('secrets sealed under the old key are sealed again under the new first key, once, and read after the old key is dropped', async () => {
    db = await createTestDb();
    const before = await start(OLD);
    const org = await http(`${before.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Globex', domains: ['globex.test'], products: ['Platform'] },
    });
    const set = await runCliJson(before.adminUrl, [
      'sso:set',
      '--org',
      (org.body as any).id,
      '--issuer',
      'http://localhost:4520/',
      '--client-id',
      'acme-platform',
      '--client-secret',
      'globex-client-secret',
    ]);
    expect(set.code).toBe(0);
    const sealedOld = await stored();
    expect(createSecretBox([OLD]).isCurrent(sealedOld)).toBe(true);

    // Step 1 (new key second): nothing to seal again.
    expect(await resealSsoSecrets(typed<UsersDb>(db), createSecretBox([OLD, NEW]))).toEqual({
      resealed: 0,
      unreadable: 0,
    });
    // Step 2 (new key first): several instances starting at once seal the row again exactly once.
    const box = createSecretBox([NEW, OLD]);
    const runs = await Promise.all(
      Array.from({ length: 8 }, () => resealSsoSecrets(typed<UsersDb>(db), box)),
    );
    expect(runs.reduce((n, r) => n + r.resealed, 0)).toBe(1);
    expect(createSecretBox([NEW]).isCurrent(await stored())).toBe(true);
    // Step 3 (old key dropped): the secret still opens.
    expect(await clientSecret(await start(NEW))).toEqual({ status: 200, secret: 'globex-client-secret' });
  });

  it('a secret no listed key opens is counted, left as it is, and not served', async () => {
    const sealed = await stored();
    const other = createSecretBox(['another-key-that-never-sealed-it-0000000']);
    expect(await resealSsoSecrets(typed<UsersDb>(db), other)).toEqual({ resealed: 0, unreadable: 1 });
    expect(await stored()).toBe(sealed);
    expect((await clientSecret(await start(OLD))).secret).toBeUndefined();
  });
});
