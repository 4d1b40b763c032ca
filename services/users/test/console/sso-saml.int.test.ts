import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDP_CERT, IDP_NEXT_CERT, idpMetadata } from '../saml-fixtures.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

// The console's Single sign-on section with a SAML 2.0 IdP (issue 26), on the real authorization
// server (bearer tokens by introspection). The IdP's metadata is served by a local HTTP server.

describe('console API: SAML single sign-on', () => {
  let stack: ConsoleStack;
  let metadataHost: Server;
  let metadataUrl = '';
  let acme = '';
  const tokens: Record<string, string> = {};
  const base = () => `/console/organisations/${acme}/sso`;

  beforeAll(async () => {
    metadataHost = createServer((req, res) => {
      if (req.url === '/metadata') {
        res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' });
        res.end(idpMetadata({ certificates: [IDP_CERT, IDP_NEXT_CERT], ssoUrl: 'http://localhost:9/sso' }));
      } else if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => metadataHost.listen(0, '127.0.0.1', resolve));
    metadataUrl = `http://localhost:${(metadataHost.address() as AddressInfo).port}/metadata`;
    stack = await startConsoleStack({
      env: {
        CONSOLE_SSO_HTTP_HOSTS: 'localhost',
        CONSOLE_SSO_ALLOW_PRIVATE: 'true',
        CONSOLE_SSO_FETCH_TIMEOUT_MS: '1000',
      },
    });
    acme = await stack.newOrganisation('acme.test');
    const ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    const grace = await stack.newUser(acme, 'acme.test', 'member');
    tokens.ada = await stack.tokenFor(ada.identityId);
    tokens.grace = await stack.tokenFor(grace.identityId);
  }, 60_000);
  afterAll(async () => {
    metadataHost?.closeAllConnections();
    await new Promise((resolve) => metadataHost?.close(resolve));
    await stack?.close();
  });

  it('an org-admin sets SAML by metadata URL and sees the IdP facts and our SP metadata', async () => {
    const set = await stack.call(tokens.ada, 'PUT', base(), {
      protocol: 'saml',
      metadataUrl,
      jit: true,
      enforce: false,
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.provider).toMatchObject({
      protocol: 'saml',
      provider: 'acme',
      idpEntityId: 'https://idp.initech.example/metadata',
      ssoUrl: 'http://localhost:9/sso',
      metadataUrl,
      refreshError: null,
      jit: true,
      enforce: false,
    });
    expect(set.body.provider.certificates).toHaveLength(2);
    expect(set.body.provider.certificates[0]).toEqual({
      fingerprint: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
      subject: expect.stringContaining('Initech'),
      notBefore: expect.any(String),
      notAfter: expect.any(String),
    });
    expect(set.body.serviceProvider).toEqual({
      entityId: `${stack.urls.identityPublic}/self-service/methods/saml/metadata/acme`,
      metadataUrl: `${stack.urls.identityPublic}/self-service/methods/saml/metadata/acme`,
      acsUrl: `${stack.urls.identityPublic}/self-service/methods/saml/acs/acme`,
    });
    expect(JSON.stringify(set.body)).not.toContain('BEGIN CERTIFICATE');
    const shown = await stack.call(tokens.ada, 'GET', base());
    expect(shown.body).toEqual(set.body);
    const events = await stack.call(
      tokens.ada,
      'GET',
      `/console/organisations/${acme}/events?type=sso.provider_changed`,
    );
    expect(events.body.events[0]).toMatchObject({
      actorKind: 'person',
      details: { protocol: 'saml', entityId: 'https://idp.initech.example/metadata', metadataSource: 'url' },
    });
  });

  it('Test connection checks the stored metadata in words: parsed, entity id, certificates, expiry, SSO URL', async () => {
    const res = await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, {});
    expect(res.status).toBe(200);
    expect(res.body.checks.map((c: any) => [c.check, c.ok, c.reason])).toEqual([
      ['metadata', true, null],
      ['entity_id', true, null],
      ['signing_certificate', true, null],
      ['certificate_expiry', true, null],
      // http is allowed for the configured development host only.
      ['sso_url', true, null],
    ]);
    expect(res.body.checks[2].value).toBe('2');
  });

  it('Test connection checks pasted metadata before it is saved, and says what is wrong', async () => {
    const noCert = await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, {
      protocol: 'saml',
      metadataXml: idpMetadata({ certificates: [] }),
    });
    expect(noCert.body.ok).toBe(false);
    expect(noCert.body.checks.map((c: any) => [c.check, c.reason])).toEqual([
      ['metadata', 'no_signing_certificate'],
      ['entity_id', 'skipped'],
      ['signing_certificate', 'skipped'],
      ['certificate_expiry', 'skipped'],
      ['sso_url', 'skipped'],
    ]);
    const plainHttp = await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, {
      protocol: 'saml',
      metadataXml: idpMetadata({ ssoUrl: 'http://idp.example/sso' }),
    });
    expect(plainHttp.body.checks.at(-1)).toEqual({
      check: 'sso_url',
      ok: false,
      reason: 'not_https',
      value: 'http://idp.example/sso',
    });
    const redirect = await stack.call(tokens.ada, 'POST', `${base()}/test-connection`, {
      protocol: 'saml',
      metadataUrl: metadataUrl.replace('/metadata', '/redirect'),
    });
    expect(redirect.body.checks[0]).toMatchObject({ check: 'metadata', ok: false, reason: 'redirect' });
  });

  it('takes pasted metadata larger than the usual body limit, up to the 1 MiB metadata limit', async () => {
    const padded = idpMetadata().replace(
      '</md:EntityDescriptor>',
      `<md:Extensions><!--${'x'.repeat(100_000)}--></md:Extensions></md:EntityDescriptor>`,
    );
    const res = await stack.call(tokens.ada, 'PUT', base(), {
      protocol: 'saml',
      metadataXml: padded,
      jit: false,
      enforce: false,
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
    expect(res.body.provider).toMatchObject({ protocol: 'saml', metadataUrl: null, jit: false });
    const tooLarge = await stack.call(tokens.ada, 'PUT', base(), {
      protocol: 'saml',
      metadataXml: `${idpMetadata()}<!--${'x'.repeat(1024 * 1024)}-->`,
      jit: false,
      enforce: false,
    });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.errorCode).toMatch(/^(INVALID_REQUEST|SAML_METADATA_INVALID)$/);
  });

  it('refuses a metadata URL to a private address unless configured, a member, and Test sign-in for SAML', async () => {
    const member = await stack.call(tokens.grace, 'PUT', base(), {
      protocol: 'saml',
      metadataUrl,
      jit: true,
      enforce: false,
    });
    expect(member.status).toBe(403);
    const testSignIn = await stack.call(tokens.ada, 'POST', `${base()}/test-sign-in`, {});
    expect(testSignIn.status).toBe(422);
    expect(testSignIn.body).toEqual({
      errorCode: 'SSO_TEST_FAILED',
      message: expect.stringContaining('SAML'),
    });
    const both = await stack.call(tokens.ada, 'PUT', base(), {
      protocol: 'saml',
      metadataUrl,
      metadataXml: idpMetadata(),
      jit: true,
      enforce: false,
    });
    expect(both.status).toBe(400);
    expect(both.body.errorCode).toBe('INVALID_REQUEST');
  });

  it('goes back to OIDC: the console form without a protocol is OIDC as before', async () => {
    const res = await stack.call(tokens.ada, 'PUT', base(), {
      issuer: 'http://localhost:9',
      clientId: 'c',
      scopes: ['openid'],
      jit: true,
      enforce: false,
    });
    // From SAML, OIDC needs its secret: nothing is kept from the SAML provider.
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('clientSecret');
  });
});
