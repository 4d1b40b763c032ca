import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, runCliJson, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('admin CLI: invitations and the terms export', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    svc = await startTestService({
      env: { IDENTITY_ADMIN_URL: identity.adminUrl, IDENTITY_PUBLIC_URL: identity.publicUrl },
    });
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
  });

  const cli = (...argv: string[]) => runCliJson(svc.adminUrl, argv);

  it('invite:create, invite:list, invite:resend, invite:revoke and terms:export', async () => {
    const org = await cli('org:create', '--name', 'Acme', '--domains', 'acme.test');
    const orgId = org.json.id;
    const created = await cli(
      'invite:create',
      '--org',
      orgId,
      '--email',
      'new@acme.test',
      '--first',
      'New',
      '--last',
      'Person',
      '--role',
      'member',
      '--git-user',
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({ state: 'pending', email: 'new@acme.test', sendCount: 1 });
    expect((await identity.identity(created.json.identityId)).traits.onboarding.isGitUser).toBe(true);
    expect(created.stdout).not.toContain(identity.recoveryCodes.at(-1)!.code);

    const list = await cli('invite:list', '--org', orgId);
    expect(list.json.invitations.map((i: any) => i.id)).toEqual([created.json.id]);
    const resent = await cli('invite:resend', '--id', created.json.id);
    expect(resent.json).toMatchObject({ state: 'pending', sendCount: 2 });
    const revoked = await cli('invite:revoke', '--id', created.json.id);
    expect(revoked.json.state).toBe('revoked');
    const missing = await cli('invite:revoke', '--id', 'nope');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toMatchObject({ errorCode: 'INVITATION_NOT_FOUND' });
    expect((await cli('invite:resend')).code).toBe(2);

    // An accepted invitation leaves two records to export.
    const second = await cli(
      'invite:create',
      '--org',
      orgId,
      '--email',
      'b@acme.test',
      '--first',
      'B',
      '--last',
      'C',
      '--role',
      'admin',
    );
    await http(`${svc.publicUrl}/terms/accept`, {
      method: 'POST',
      headers: { cookie: await identity.signIn(second.json.identityId) },
      json: {
        documents: [
          { document: 'terms', version: '2026-01' },
          { document: 'privacy', version: '2026-01' },
        ],
      },
    });
    const csv = await cli('terms:export', '--org', orgId);
    expect(csv.code).toBe(0);
    const lines = csv.stdout.trim().split('\r\n');
    expect(lines[0]).toBe(
      '"id","userId","email","organisationId","document","version","acceptedAt","ipAddress","userAgent","source"',
    );
    expect(lines).toHaveLength(3);
    const json = await cli('terms:export', '--format', 'json');
    expect(json.json.acceptances).toHaveLength(2);
    expect((await cli('terms:export', '--format', 'xml')).code).toBe(2);
  });
});
