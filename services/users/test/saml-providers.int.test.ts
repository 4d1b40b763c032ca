import { X509Certificate } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshDueSamlMetadata } from '../src/sso/saml-provider.ts';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, recordingServer, runCliJson, startTestService } from './harness.ts';
import type { RecordingServer, StubResponse, TestUsersService } from './harness.ts';
import { IDP_CERT, IDP_NEXT_CERT, idpMetadata } from './saml-fixtures.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// SAML providers in the user service (issue 26): set by metadata URL or file (admin API, CLI), the
// identity service's directory answer, the daily refresh on a fake clock, and metadata refused.

const ENTITY_ID = 'https://idp.initech.example/metadata';
const HOUR = 3_600_000;

describe('SAML providers per organisation', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;
  let idp: RecordingServer;
  let initech = '';
  let globex = '';
  let serve: () => StubResponse | Promise<StubResponse> = () => ({ status: 200, text: idpMetadata() });

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    idp = await recordingServer(() => serve());
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identity.adminUrl,
        IDENTITY_PUBLIC_URL: 'https://id.platform.example',
        // The metadata host is this test's loopback server (development policy).
        CONSOLE_SSO_HTTP_HOSTS: '127.0.0.1',
        CONSOLE_SSO_ALLOW_PRIVATE: 'true',
        CONSOLE_SSO_FETCH_TIMEOUT_MS: '2000',
      },
    });
    const org = async (name: string, domain: string) =>
      (
        (
          await http(`${svc.adminUrl}/admin/organisations`, {
            method: 'POST',
            json: { name, domains: [domain], products: ['Platform'] },
          })
        ).body as any
      ).id as string;
    initech = await org('Initech', 'initech.test');
    globex = await org('Globex', 'globex.test');
  });
  afterAll(async () => {
    await svc?.close();
    await idp?.close();
    await identity?.close();
  });

  const cli = (...argv: string[]) => runCliJson(svc.adminUrl, argv);
  const put = (org: string, json: unknown) =>
    http(`${svc.adminUrl}/admin/organisations/${org}/sso`, { method: 'PUT', json });
  const refresh = () =>
    refreshDueSamlMetadata({ db: svc.db.kysely as any, clock: svc.clock, config: svc.config });
  const events = async (type: string) =>
    (await svc.db.kysely
      .selectFrom('security_events' as any)
      .select(['details' as any, 'actor_kind' as any])
      .where('type' as any, '=', type)
      .where('organisation_id' as any, '=', initech)
      .execute()) as { details: Record<string, string>; actor_kind: string }[];

  it('sso:set --protocol saml --metadata-url stores the parsed metadata; sso:get shows facts, never a certificate', async () => {
    const set = await cli(
      'sso:set',
      '--org',
      initech,
      '--protocol',
      'saml',
      '--metadata-url',
      `${idp.url}/metadata`,
      '--provider',
      'initech',
    );
    expect(set.code).toBe(0);
    const got = await cli('sso:get', '--org', initech);
    expect(got.json).toEqual(set.json);
    expect(got.json).toMatchObject({
      protocol: 'saml',
      provider: 'initech',
      organisationId: initech,
      jit: true,
      enforce: false,
      saml: {
        idpEntityId: ENTITY_ID,
        ssoUrl: 'https://idp.initech.example/sso',
        metadataUrl: `${idp.url}/metadata`,
        certificates: [
          {
            fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
            notAfter: expect.any(String),
          },
        ],
        attributes: { email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups' },
        allowIdpInitiated: false,
        refreshError: null,
      },
      serviceProvider: {
        entityId: 'https://id.platform.example/self-service/methods/saml/metadata/initech',
        metadataUrl: 'https://id.platform.example/self-service/methods/saml/metadata/initech',
        acsUrl: 'https://id.platform.example/self-service/methods/saml/acs/initech',
      },
    });
    expect(got.stdout).not.toContain('BEGIN CERTIFICATE');
    expect(got.stdout).not.toContain(IDP_CERT.split('\n')[1]);
    const login = await http(`${svc.publicUrl}/login/config?emailAddress=milton%40initech.test`);
    expect(login.body).toMatchObject({ sso: true, provider: 'initech' });
  });

  it('gives the identity service the SAML directory answer of the contract', async () => {
    const res = await http(`${svc.adminUrl}/admin/sso/providers/initech`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      protocol: 'saml',
      provider: 'initech',
      organisationId: initech,
      jit: true,
      domains: ['initech.test'],
      saml: {
        idpEntityId: ENTITY_ID,
        ssoUrl: 'https://idp.initech.example/sso',
        certificates: [expect.stringContaining('-----BEGIN CERTIFICATE-----')],
        allowIdpInitiated: false,
        attributes: { email: 'email', firstName: 'firstName', lastName: 'lastName', groups: 'groups' },
      },
    });
  });

  it("an OIDC provider's answer is unchanged, plus protocol oidc (no protocol in the input means OIDC)", async () => {
    const set = await put(globex, {
      issuer: 'https://login.globex.example',
      clientId: 'c',
      clientSecret: 'globex-secret',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ protocol: 'oidc', clientSecretSet: true });
    const res = await http(`${svc.adminUrl}/admin/sso/providers/globex`);
    expect(res.body).toMatchObject({
      protocol: 'oidc',
      provider: 'globex',
      issuer: 'https://login.globex.example',
      clientSecret: 'globex-secret',
      domains: ['globex.test'],
    });
  });

  it('sso:set --metadata-file with attribute names and IdP-initiated sign-in; the event names the entity id only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'saml-'));
    const file = join(dir, 'idp.xml');
    writeFileSync(file, idpMetadata({ certificates: [IDP_CERT, IDP_NEXT_CERT] }));
    const set = await cli(
      'sso:set',
      '--org',
      initech,
      '--protocol',
      'saml',
      '--metadata-file',
      file,
      '--attr-email',
      'nameid',
      '--attr-groups',
      'http://schemas.xmlsoap.org/claims/Group',
      '--allow-idp-initiated',
      'on',
      '--enforce',
      'on',
    );
    expect(set.code).toBe(0);
    expect(set.json.saml).toMatchObject({
      metadataUrl: null,
      attributes: {
        email: 'nameid',
        firstName: 'firstName',
        groups: 'http://schemas.xmlsoap.org/claims/Group',
      },
      allowIdpInitiated: true,
    });
    expect(set.json.saml.certificates).toHaveLength(2);
    expect(set.json.enforce).toBe(true);
    const directory = (await http(`${svc.adminUrl}/admin/sso/providers/initech`)).body as any;
    expect(directory.saml.certificates).toHaveLength(2);
    const changed = await events('sso.provider_changed');
    expect(changed.at(-1)!.details).toEqual({
      change: 'updated',
      protocol: 'saml',
      entityId: ENTITY_ID,
      metadataSource: 'xml',
      jit: 'true',
      enforce: 'true',
    });
    expect(JSON.stringify(changed)).not.toContain('BEGIN CERTIFICATE');
  });

  it.each([
    ['malformed XML', { metadataXml: '<md:EntityDescriptor' }],
    ['a DTD with entities', { metadataXml: idpMetadata({ prolog: '<!DOCTYPE a [<!ENTITY b "c">]>' }) }],
    [
      'an external entity',
      { metadataXml: idpMetadata({ prolog: '<!DOCTYPE a SYSTEM "http://169.254.169.254/">' }) },
    ],
    ['no signing certificate', { metadataXml: idpMetadata({ certificates: [] }) }],
    ['no HTTP-Redirect endpoint', { metadataXml: idpMetadata({ postOnly: true }) }],
    [
      'a NUL character',
      { metadataXml: idpMetadata().replace('<md:IDPSSODescriptor', '\u0000<md:IDPSSODescriptor') },
    ],
    ['more than 1 MiB', { metadataXml: `${idpMetadata()}<!--${'x'.repeat(1024 * 1024)}-->` }],
  ])(
    'refuses metadata with %s as SAML_METADATA_INVALID, keeping the stored provider',
    async (_name, body) => {
      const before = (await http(`${svc.adminUrl}/admin/organisations/${initech}/sso`)).body;
      const res = await put(initech, { protocol: 'saml', ...body });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
      expect(res.body).toEqual({
        errorCode: expect.stringMatching(/^(SAML_METADATA_INVALID|INVALID_REQUEST)$/),
        message: expect.any(String),
      });
      expect((await http(`${svc.adminUrl}/admin/organisations/${initech}/sso`)).body).toEqual(before);
    },
  );

  it('names what is wrong with refused metadata', async () => {
    const res = await put(initech, { protocol: 'saml', metadataXml: idpMetadata({ certificates: [] }) });
    expect(res.body).toEqual({
      errorCode: 'SAML_METADATA_INVALID',
      message: 'The SAML metadata is refused: the identity provider publishes no signing certificate.',
    });
    const dtd = await put(initech, {
      protocol: 'saml',
      metadataXml: idpMetadata({ prolog: '<!DOCTYPE a>' }),
    });
    expect((dtd.body as any).errorCode).toBe('SAML_METADATA_INVALID');
    expect((dtd.body as any).message).toContain('document type declaration');
  });

  it('refuses both or neither metadata source, OIDC fields on SAML, and a body over 2 MiB', async () => {
    const both = await put(initech, {
      protocol: 'saml',
      metadataUrl: `${idp.url}/m`,
      metadataXml: idpMetadata(),
    });
    expect(both.status).toBe(400);
    expect((both.body as any).errorCode).toBe('INVALID_REQUEST');
    const neither = await put(initech, { protocol: 'saml' });
    expect((neither.body as any).errorCode).toBe('INVALID_REQUEST');
    const mixed = await put(initech, { protocol: 'saml', metadataXml: idpMetadata(), clientSecret: 'x' });
    expect((mixed.body as any).errorCode).toBe('INVALID_REQUEST');
    const huge = await put(initech, { protocol: 'saml', metadataXml: 'x'.repeat(2 * 1024 * 1024 + 10) });
    expect(huge.status).toBe(413);
    expect((huge.body as any).errorCode).toBe('PAYLOAD_TOO_LARGE');
    const usage = await cli('sso:set', '--org', initech, '--protocol', 'saml');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('give exactly one of --metadata-url and --metadata-file');
  });

  it('refuses a metadata URL that redirects (to a cloud metadata address) or answers too much', async () => {
    serve = () => ({ status: 302, text: '' });
    const redirect = await put(initech, { protocol: 'saml', metadataUrl: `${idp.url}/metadata` });
    expect(redirect.status).toBe(502);
    expect(redirect.body).toEqual({
      errorCode: 'SAML_METADATA_UNREACHABLE',
      message: 'The SAML metadata URL could not be read (redirect).',
    });
    serve = () => ({ status: 200, text: `${idpMetadata()}<!--${'x'.repeat(1024 * 1024 + 1)}-->` });
    const large = await put(initech, { protocol: 'saml', metadataUrl: `${idp.url}/metadata` });
    expect((large.body as any).message).toContain('too large');
    serve = () => ({ status: 200, text: idpMetadata() });
  });

  describe('the daily refresh of a metadata URL', () => {
    beforeAll(async () => {
      serve = () => ({ status: 200, text: idpMetadata() });
      const set = await put(initech, {
        protocol: 'saml',
        provider: 'initech',
        metadataUrl: `${idp.url}/metadata`,
      });
      expect(set.status).toBe(200);
    });
    const stored = async () =>
      ((await http(`${svc.adminUrl}/admin/organisations/${initech}/sso`)).body as any).saml;

    it('fetches again after a day, not before, and picks up a rollover certificate', async () => {
      serve = () => ({ status: 200, text: idpMetadata({ certificates: [IDP_CERT, IDP_NEXT_CERT] }) });
      svc.clock.advance(23 * HOUR);
      expect(await refresh()).toEqual({});
      expect((await stored()).certificates).toHaveLength(1);
      svc.clock.advance(HOUR);
      expect(await refresh()).toEqual({ initech: 'ok' });
      const now = await stored();
      expect(now.certificates).toHaveLength(2);
      expect(now.fetchedAt).toBe(svc.clock.now().toISOString());
      const directory = (await http(`${svc.adminUrl}/admin/sso/providers/initech`)).body as any;
      expect(directory.saml.certificates).toHaveLength(2);
    });

    it.each([
      ['the URL answers 500', () => ({ status: 500, text: 'down' }), 'http_status'],
      [
        'the metadata has a DTD',
        () => ({ status: 200, text: idpMetadata({ prolog: '<!DOCTYPE x>' }) }),
        'dtd',
      ],
      [
        'the metadata names another entity id',
        () => ({
          status: 200,
          text: idpMetadata({ entityId: 'https://evil.example/idp', certificates: [IDP_NEXT_CERT] }),
        }),
        'entity_id_changed',
      ],
      [
        'the metadata lost its certificate',
        () => ({ status: 200, text: idpMetadata({ certificates: [] }) }),
        'no_signing_certificate',
      ],
    ])('keeps the last good copy when %s, and records an event', async (_name, answer, reason) => {
      const before = await stored();
      serve = answer;
      svc.clock.advance(24 * HOUR);
      expect(await refresh()).toEqual({ initech: reason });
      const after = await stored();
      expect(after).toMatchObject({
        idpEntityId: before.idpEntityId,
        certificates: before.certificates,
        fetchedAt: before.fetchedAt,
        refreshError: reason,
        checkedAt: svc.clock.now().toISOString(),
      });
      const directory = (await http(`${svc.adminUrl}/admin/sso/providers/initech`)).body as any;
      expect(directory.saml.idpEntityId).toBe(ENTITY_ID);
      const failed = await events('sso.metadata_refresh_failed');
      expect(failed.at(-1)).toEqual({
        actor_kind: 'system',
        details: { provider: 'initech', entityId: ENTITY_ID, reason },
      });
      // A failed refresh is tried again a day later, not at once.
      expect(await refresh()).toEqual({});
    });

    it('parallel refreshes (several instances) store one outcome and record one event', async () => {
      const before = (await events('sso.metadata_refresh_failed')).length;
      serve = () => ({ status: 503, text: 'busy' });
      svc.clock.advance(24 * HOUR);
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => refresh()));
      const values = outcomes.map((o) => o.initech);
      expect(values.filter((v) => v === 'http_status')).toHaveLength(1);
      // The others lost the write (`superseded`), or read the provider after it was written (no longer due).
      expect(
        values.filter((v) => v !== 'http_status').every((v) => v === 'superseded' || v === undefined),
      ).toBe(true);
      expect(await events('sso.metadata_refresh_failed')).toHaveLength(before + 1);
    });

    it('clears the error once the URL answers good metadata again', async () => {
      serve = () => ({ status: 200, text: idpMetadata() });
      svc.clock.advance(24 * HOUR);
      expect(await refresh()).toEqual({ initech: 'ok' });
      expect(await stored()).toMatchObject({ refreshError: null, certificates: [expect.any(Object)] });
    });
  });

  it('a refresh never overwrites a provider saved while it was fetching', async () => {
    const set = await put(initech, {
      protocol: 'saml',
      provider: 'initech',
      metadataUrl: `${idp.url}/metadata`,
    });
    expect(set.status).toBe(200);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    serve = async () => {
      await held;
      return { status: 200, text: idpMetadata({ certificates: [IDP_NEXT_CERT] }) };
    };
    svc.clock.advance(24 * HOUR);
    const asked = idp.requests.length;
    const pending = refresh();
    while (idp.requests.length === asked) await new Promise((r) => setTimeout(r, 10));
    // The admin pastes other metadata while the refresh waits for the URL.
    const saved = await put(initech, { protocol: 'saml', provider: 'initech', metadataXml: idpMetadata() });
    expect(saved.status).toBe(200);
    release();
    expect(await pending).toEqual({ initech: 'superseded' });
    const stored = ((await http(`${svc.adminUrl}/admin/organisations/${initech}/sso`)).body as any).saml;
    expect(stored).toMatchObject({ metadataUrl: null, refreshError: null });
    // The pasted metadata's certificate, not the one the late refresh fetched.
    expect(stored.certificates.map((c: any) => c.fingerprint)).toEqual([
      new X509Certificate(IDP_CERT).fingerprint256,
    ]);
  });

  it('removes a SAML provider, and the directory no longer knows it', async () => {
    const removed = await cli('sso:remove', '--org', initech);
    expect(removed.code).toBe(0);
    const res = await http(`${svc.adminUrl}/admin/sso/providers/initech`);
    expect(res.status).toBe(404);
    expect((res.body as any).errorCode).toBe('SSO_NOT_CONFIGURED');
  });
});
