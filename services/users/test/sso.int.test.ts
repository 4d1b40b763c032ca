import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, runCliJson, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';
import { runCli } from '../src/cli-commands.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('SSO providers per organisation', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;
  let globex: string;
  let initech: string;
  let acme: string;

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identity.adminUrl,
        IDENTITY_PUBLIC_URL: identity.publicUrl,
        LOGIN_CONFIG_RATE_LIMIT: '1000',
      },
    });
    const org = async (name: string, domain: string) =>
      (
        (
          await http(`${svc.adminUrl}/admin/organisations`, {
            method: 'POST',
            json: { name, domains: [domain], products: ['Platform', 'MAGIC'] },
          })
        ).body as any
      ).id as string;
    globex = await org('Globex', 'globex.test');
    initech = await org('Initech', 'initech.test');
    acme = await org('Acme', 'acme.test');
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
  });

  const cli = (...argv: string[]) => runCliJson(svc.adminUrl, argv);
  const loginConfig = async (email: string) =>
    (await http(`${svc.publicUrl}/login/config?emailAddress=${encodeURIComponent(email)}`)).body;

  it('sso:set stores the provider, shows it without the secret, and /login/config answers from it', async () => {
    const set = await cli(
      'sso:set',
      '--org',
      globex,
      '--issuer',
      'http://localhost:4520/',
      '--client-id',
      'acme-platform',
      '--client-secret',
      'very-secret-value',
    );
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({
      provider: 'globex',
      organisationId: globex,
      issuer: 'http://localhost:4520',
      clientId: 'acme-platform',
      clientSecretSet: true,
      scopes: ['openid', 'email', 'profile'],
      jit: true,
      userinfo: false,
    });
    expect(set.stdout).not.toContain('very-secret-value');

    const show = await cli('sso:show', '--org', globex);
    expect(show.json).toEqual(set.json);
    expect(await loginConfig('someone@globex.test')).toEqual({
      email: 'someone@globex.test',
      sso: true,
      provider: 'globex',
      m365: false,
      magic: true,
      selfSignUp: false,
    });
  });

  it('keeps the client secret encrypted at rest', async () => {
    const row = await svc.db.kysely
      .selectFrom('sso_providers' as any)
      .select(['client_secret_enc' as any])
      .executeTakeFirstOrThrow();
    const stored = (row as any).client_secret_enc as string;
    expect(stored).not.toContain('very-secret-value');
    expect(stored.startsWith('v2.')).toBe(true);
  });

  it('gives the identity service the relying-party configuration with the secret and the domains', async () => {
    const res = await http(`${svc.adminUrl}/admin/sso/providers/globex`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({
      provider: 'globex',
      clientSecret: 'very-secret-value',
      domains: ['globex.test'],
      claimMapping: { email: 'email', emailVerified: 'email_verified' },
    });
    const unknown = await http(`${svc.adminUrl}/admin/sso/providers/nope`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ errorCode: 'SSO_NOT_CONFIGURED', message: expect.any(String) });
  });

  it('reads the secret from SSO_CLIENT_SECRET when the flag is absent, and takes options', async () => {
    const out: string[] = [];
    const code = await runCli(
      [
        'sso:set',
        '--org',
        initech,
        '--issuer',
        'https://login.initech.test',
        '--client-id',
        'c1',
        '--provider',
        'initech-okta',
        '--jit',
        'off',
        '--userinfo',
      ],
      {
        env: { USERS_ADMIN_URL: svc.adminUrl, SSO_CLIENT_SECRET: 'from-env' },
        out: (t) => out.push(t),
        err: () => {},
      },
    );
    expect(code).toBe(0);
    expect(JSON.parse(out.join(''))).toMatchObject({ provider: 'initech-okta', jit: false, userinfo: true });
    const cfg = await http(`${svc.adminUrl}/admin/sso/providers/initech-okta`);
    expect((cfg.body as any).clientSecret).toBe('from-env');
  });

  it('refuses a provider id another organisation uses, a bad issuer, scopes without openid, a usage error', async () => {
    const put = (org: string, json: unknown) =>
      http(`${svc.adminUrl}/admin/organisations/${org}/sso`, { method: 'PUT', json });
    const taken = await put(acme, {
      provider: 'globex',
      issuer: 'https://x.test',
      clientId: 'a',
      clientSecret: 'b',
    });
    expect(taken.status).toBe(409);
    expect((taken.body as any).errorCode).toBe('SSO_PROVIDER_TAKEN');
    for (const body of [
      { issuer: 'https://x.test/?a=1', clientId: 'a', clientSecret: 'b' },
      { issuer: 'javascript:alert(1)', clientId: 'a', clientSecret: 'b' },
      { issuer: 'https://x.test', clientId: 'a', clientSecret: 'b', scopes: ['email'] },
      { issuer: 'https://x.test', clientId: 'a' },
      { issuer: 'https://x.test', clientId: 'a', clientSecret: 'b', extra: 1 },
    ]) {
      const res = await put(acme, body);
      expect(res.status).toBe(400);
      expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
    }
    const missingOrg = await put('00000000-0000-4000-8000-000000000000', {
      issuer: 'https://x.test',
      clientId: 'a',
      clientSecret: 'b',
    });
    expect(missingOrg.status).toBe(404);
    const usage = await cli('sso:set', '--org', acme, '--issuer', 'https://x.test', '--client-id', 'a');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--client-secret');
  });

  it('creates a just-in-time member with a verified identity, then answers the same member again', async () => {
    const first = await http(`${svc.adminUrl}/admin/sso/providers/globex/members`, {
      method: 'POST',
      json: { email: 'Lovelace@Globex.test', firstName: 'Ada', lastName: 'Lovelace' },
    });
    expect(first.status).toBe(200);
    const { userId, identityId } = first.body as any;
    const created = identity.requests.filter((r) => r.method === 'POST' && r.path === '/admin/identities');
    const body = created.at(-1)!.body as any;
    expect(body.traits).toMatchObject({ email: 'lovelace@globex.test', userServiceID: userId });
    expect(body.credentials).toBeUndefined();
    expect(body.verifiable_addresses?.[0]?.verified).toBe(true);

    const again = await http(`${svc.adminUrl}/admin/sso/providers/globex/members`, {
      method: 'POST',
      json: { email: 'lovelace@globex.test' },
    });
    expect(again.body).toEqual({ userId, identityId });
    const user = await http(`${svc.adminUrl}/admin/users/${userId}`);
    expect((user.body as any).organisationId).toBe(globex);
  });

  it('asserted groups grant through the organisation group mapping: at creation, at each sign-in, never while SCIM is on', async () => {
    // The mapping the console's Provisioning page keeps (validated there; written here directly).
    await svc.db.kysely
      .insertInto('scim_settings' as never)
      .values({
        organisation_id: globex,
        group_mappings: JSON.stringify([
          { group: 'Quants', role: 'user', scopeGroups: ['research'] },
          { group: 'IT', role: 'org-admin', scopeGroups: [] },
        ]),
        updated_at: new Date(),
      } as never)
      .execute();
    const member = (email: string, groups?: string[]) =>
      http(`${svc.adminUrl}/admin/sso/providers/globex/members`, {
        method: 'POST',
        json: { email, ...(groups ? { groups } : {}) },
      });
    const user = async (id: string) => (await http(`${svc.adminUrl}/admin/users/${id}`)).body as any;

    const quant = await member('gauss@globex.test', ['Quants', 'Unmapped']);
    expect(quant.status).toBe(200);
    expect(await user((quant.body as any).userId)).toMatchObject({
      role: 'member',
      scopeGroups: ['research'],
    });

    // The next sign-in asserts other groups: the member follows them, and the change is recorded.
    const promoted = await member('gauss@globex.test', ['IT']);
    const id = (promoted.body as any).userId as string;
    expect(await user(id)).toMatchObject({ role: 'org-admin', scopeGroups: [] });
    const events = await svc.db.kysely
      .selectFrom('security_events' as never)
      .selectAll()
      .where('subject_id' as never, '=', id as never)
      .execute();
    expect(events.map((e: any) => e.type)).toContain('member.role_changed');

    // Without the attribute nothing changes (an OIDC provider sends none).
    await member('gauss@globex.test');
    expect(await user(id)).toMatchObject({ role: 'org-admin' });

    // While SCIM is on, its groups decide: the assertion's are ignored.
    await svc.db.kysely
      .insertInto('scim_tokens' as never)
      .values({
        id: '55555555-5555-4555-8555-555555555555',
        organisation_id: globex,
        name: 'directory',
        token_hash: 'x'.repeat(64),
        created_by: 'test',
        created_at: new Date(),
      } as never)
      .execute();
    await member('gauss@globex.test', ['Quants']);
    expect(await user(id)).toMatchObject({ role: 'org-admin', scopeGroups: [] });
    await svc.db.kysely.deleteFrom('scim_tokens' as never).execute();
    await svc.db.kysely.deleteFrom('scim_settings' as never).execute();
  });

  it('refuses a member when just-in-time creation is off, or for an address outside the organisation', async () => {
    const off = await http(`${svc.adminUrl}/admin/sso/providers/initech-okta/members`, {
      method: 'POST',
      json: { email: 'new@initech.test' },
    });
    expect(off.status).toBe(403);
    expect((off.body as any).errorCode).toBe('JIT_DISABLED');
    const foreign = await http(`${svc.adminUrl}/admin/sso/providers/globex/members`, {
      method: 'POST',
      json: { email: 'ceo@acme.test' },
    });
    expect(foreign.status).toBe(400);
    expect((foreign.body as any).errorCode).toBe('EMAIL_DOMAIN_MISMATCH');
  });

  it('sso:set --enforce on|off and sso:break-glass: the domain policy the identity service reads', async () => {
    const policy = async (domain: string) => {
      const res = await http(`${svc.adminUrl}/admin/sso/domains/${domain}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      return res.body;
    };
    expect(await policy('globex.test')).toEqual({ enforced: false, exemptEmails: [] });
    const base = [
      'sso:set',
      '--org',
      globex,
      '--issuer',
      'http://localhost:4520',
      '--client-id',
      'acme-platform',
    ];
    const on = await cli(...base, '--client-secret', 'very-secret-value', '--enforce', 'on');
    expect(on.code).toBe(0);
    expect(on.json).toMatchObject({ enforce: true, breakGlassUserId: null });
    expect((await cli('sso:show', '--org', globex)).json).toMatchObject({ enforce: true });
    // Same answer for every address of the domain, and for unknown domains the same shape.
    expect(await policy('globex.test')).toEqual({ enforced: true, exemptEmails: [] });
    expect(await policy('GLOBEX.test')).toEqual({ enforced: true, exemptEmails: [] });
    expect(await policy('nowhere.test')).toEqual({ enforced: false, exemptEmails: [] });
    // Leaving --enforce out keeps it.
    expect((await cli(...base, '--client-secret', 'very-secret-value')).json).toMatchObject({
      enforce: true,
    });

    const user = async (email: string, role: string) =>
      (
        (
          await http(`${svc.adminUrl}/admin/users`, {
            method: 'POST',
            json: { organisationId: globex, email, firstName: 'A', lastName: 'B', role },
          })
        ).body as any
      ).id as string;
    const admin = await user('root@globex.test', 'org-admin');
    const member = await user('plain@globex.test', 'member');
    const refused = await cli('sso:break-glass', '--org', globex, '--user', member);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('SSO_BREAK_GLASS_NOT_ORG_ADMIN');
    const exempt = await cli('sso:break-glass', '--org', globex, '--user', admin);
    expect(exempt.code).toBe(0);
    expect(exempt.json).toMatchObject({ breakGlassUserId: admin });
    expect(await policy('globex.test')).toEqual({ enforced: true, exemptEmails: ['root@globex.test'] });
    // A demoted break-glass user is exempt no longer.
    await svc.db.kysely
      .updateTable('users' as any)
      .set({ role: 'member' } as any)
      .where('id' as any, '=', admin)
      .execute();
    expect(await policy('globex.test')).toEqual({ enforced: true, exemptEmails: [] });
    expect((await cli('sso:break-glass', '--org', globex, '--clear')).json).toMatchObject({
      breakGlassUserId: null,
    });
    expect((await cli('sso:break-glass', '--org', globex)).code).toBe(2);
    const off = await cli(...base, '--client-secret', 'very-secret-value', '--enforce', 'off');
    expect(off.json).toMatchObject({ enforce: false });
    expect(await policy('globex.test')).toEqual({ enforced: false, exemptEmails: [] });
    expect((await cli(...base, '--client-secret', 'x', '--enforce', 'maybe')).code).toBe(2);
    // Bad input answers 400 INVALID_REQUEST, never a 500.
    for (const res of [
      await http(`${svc.adminUrl}/admin/sso/domains/%00`),
      await http(`${svc.adminUrl}/admin/sso/domains/bad_domain%21`),
      await http(`${svc.adminUrl}/admin/organisations/${globex}/sso/break-glass`, {
        method: 'PUT',
        json: { userId: '\u0000' },
      }),
      await http(`${svc.adminUrl}/admin/organisations/${globex}/sso/break-glass`, {
        method: 'PUT',
        json: {},
      }),
    ]) {
      expect(res.status).toBe(400);
      expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
    }
  });

  it('sso:remove turns single sign-on off for the domain', async () => {
    const removed = await cli('sso:remove', '--org', initech);
    expect(removed.code).toBe(0);
    expect((await loginConfig('x@initech.test')) as any).toMatchObject({ sso: false, provider: null });
    const show = await cli('sso:show', '--org', initech);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('SSO_NOT_CONFIGURED');
  });
});
