import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAML_IDP_CERT, demoSamlIdpMetadata } from '@acme/dev';
import { seedDemo } from '../src/seed.ts';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

describe('seedDemo', () => {
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

  it('creates Acme with Ada and Grace, and skips them when run again', async () => {
    const first = await seedDemo(svc.adminUrl);
    expect(first.users).toEqual([
      { email: 'ada@acme.test', password: 'Research-Demo-2026!', created: true },
      { email: 'grace@acme.test', password: 'Research-Demo-2026!', created: true },
    ]);
    const org = await http(`${svc.adminUrl}/admin/organisations/${first.organisationId}`);
    expect(org.body).toMatchObject({
      name: 'Acme',
      domains: ['acme.test'],
      products: ['Platform', 'MAGIC'],
      subscriptionStatus: 'subscribed',
    });
    const users = await http(`${svc.adminUrl}/admin/users?organisationId=${first.organisationId}`);
    expect((users.body as any).users.map((u: any) => [u.email, u.firstName, u.lastName])).toEqual([
      ['ada@acme.test', 'Ada', 'Lovelace'],
      ['grace@acme.test', 'Grace', 'Hopper'],
    ]);
    const identities = await identity.admin.listIdentities();
    expect(identities.every((i: any) => i.traits.onboarding.tosAccepted === true)).toBe(true);

    const second = await seedDemo(`${svc.adminUrl}/`);
    expect(second.organisationId).toBe(first.organisationId);
    expect(second.users.map((u) => u.created)).toEqual([false, false]);
    expect(await identity.admin.listIdentities()).toHaveLength(2);
  });

  it('creates Globex with single sign-on and Hopper (no password, no Lovelace); a second run updates the secret', async () => {
    const sso = { issuer: 'http://localhost:4520', clientId: 'acme-platform', clientSecret: 'first' };
    const first = await seedDemo(svc.adminUrl, undefined, { sso });
    expect(first.sso).toMatchObject({
      provider: 'globex',
      users: [{ email: 'hopper@globex.test', created: true }],
    });
    const org = await http(`${svc.adminUrl}/admin/organisations/${first.sso!.organisationId}`);
    expect(org.body).toMatchObject({
      name: 'Globex',
      domains: ['globex.test'],
      products: ['Platform', 'MAGIC'],
      subscriptionStatus: 'subscribed',
      sso: { provider: 'globex' },
    });
    const users = await http(`${svc.adminUrl}/admin/users?organisationId=${first.sso!.organisationId}`);
    expect((users.body as any).users.map((u: any) => u.email)).toEqual(['hopper@globex.test']);
    const created = identity.requests.filter((r) => r.method === 'POST' && r.path === '/admin/identities');
    expect((created.at(-1)!.body as any).credentials).toBeUndefined();

    const second = await seedDemo(svc.adminUrl, undefined, { sso: { ...sso, clientSecret: 'second' } });
    expect(second.sso!.users[0]!.created).toBe(false);
    const cfg = await http(`${svc.adminUrl}/admin/sso/providers/globex`);
    expect(cfg.body).toMatchObject({ issuer: 'http://localhost:4520', clientSecret: 'second', jit: true });
  });

  it('creates Initech with SAML through the stand-in (its dev metadata) and Milton, not Peter (JIT)', async () => {
    const saml = { metadataXml: demoSamlIdpMetadata('http://localhost:4521') };
    const first = await seedDemo(svc.adminUrl, undefined, { saml });
    expect(first.saml).toMatchObject({
      provider: 'initech',
      users: [{ email: 'milton@initech.test', created: true }],
    });
    const users = await http(`${svc.adminUrl}/admin/users?organisationId=${first.saml!.organisationId}`);
    expect((users.body as any).users.map((u: any) => u.email)).toEqual(['milton@initech.test']);
    const cfg = await http(`${svc.adminUrl}/admin/sso/providers/initech`);
    expect(cfg.body).toMatchObject({
      protocol: 'saml',
      jit: true,
      domains: ['initech.test'],
      saml: {
        idpEntityId: 'http://localhost:4521/metadata',
        ssoUrl: 'http://localhost:4521/sso',
        certificates: [new X509Certificate(SAML_IDP_CERT).toString().trim()],
        allowIdpInitiated: false,
      },
    });
    const second = await seedDemo(svc.adminUrl, undefined, { saml });
    expect(second.saml!.organisationId).toBe(first.saml!.organisationId);
    expect(second.saml!.users[0]!.created).toBe(false);
  });

  it('fails loudly when the admin API is unreachable', async () => {
    await expect(seedDemo('http://127.0.0.1:9')).rejects.toThrow();
  });
});
