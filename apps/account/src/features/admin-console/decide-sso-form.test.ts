import { describe, expect, it } from 'vitest';
import { consoleCopy } from './copy.ts';
import { decideSamlForm, decideSsoForm, type SamlFormFields, type SsoFormFields } from './decide-sso-form.ts';

const t = consoleCopy.sso;
const good: SsoFormFields = {
  issuer: ' https://acme.okta.com ',
  clientId: 'abc',
  clientSecret: 's3cret',
  scopes: 'openid email  profile email',
  jit: true,
  enforce: false,
};

describe('decideSsoForm', () => {
  it.each([
    ['no issuer', { issuer: '' }, true, 'issuer', t.issuerRequired],
    ['not a URL', { issuer: 'acme.okta.com' }, true, 'issuer', t.issuerInvalid],
    ['a query', { issuer: 'https://acme.okta.com/?x=1' }, true, 'issuer', t.issuerInvalid],
    ['credentials', { issuer: 'https://u:p@acme.okta.com' }, true, 'issuer', t.issuerInvalid],
    ['another scheme', { issuer: 'ftp://acme.okta.com' }, true, 'issuer', t.issuerInvalid],
    [
      'too long an issuer',
      { issuer: `https://a.example/${'x'.repeat(500)}` },
      true,
      'issuer',
      t.tooLong(500),
    ],
    ['no client id', { clientId: '  ' }, true, 'clientId', t.clientIdRequired],
    ['no secret for a first provider', { clientSecret: '' }, false, 'clientSecret', t.secretRequired],
    ['too long a secret', { clientSecret: 'x'.repeat(2001) }, true, 'clientSecret', t.tooLong(2000)],
    ['no openid', { scopes: 'email profile' }, true, 'scopes', t.scopesOpenid],
    ['a bad scope', { scopes: 'openid "x"' }, true, 'scopes', t.scopeInvalid('"x"')],
    [
      'too many scopes',
      { scopes: `openid ${Array.from({ length: 20 }, (_, i) => `s${i}`).join(' ')}` },
      true,
      'scopes',
      t.tooManyScopes(20),
    ],
  ] as const)('refuses %s', (_name, change, hasProvider, field, error) => {
    expect(decideSsoForm({ ...good, ...change }, hasProvider)).toEqual({ ok: false, field, error });
  });

  it('sends trimmed fields, each scope once, and the secret when typed', () => {
    expect(decideSsoForm(good, false)).toEqual({
      ok: true,
      body: {
        issuer: 'https://acme.okta.com',
        clientId: 'abc',
        clientSecret: 's3cret',
        scopes: ['openid', 'email', 'profile'],
        jit: true,
        enforce: false,
      },
    });
  });

  it('leaves the secret out when empty and a provider exists (the stored one stays)', () => {
    const decision = decideSsoForm({ ...good, clientSecret: '', enforce: true }, true);
    expect(decision).toMatchObject({ ok: true, body: { enforce: true } });
    expect(decision.ok && 'clientSecret' in decision.body).toBe(false);
  });
});

describe('decideSamlForm', () => {
  const samlGood: SamlFormFields = {
    source: 'url',
    metadataUrl: ' https://idp.example/metadata ',
    metadataXml: '',
    jit: true,
    enforce: false,
  };

  it.each([
    ['no URL', { metadataUrl: '' }, 'metadataUrl', t.saml.urlRequired],
    ['not a URL', { metadataUrl: 'idp.example/metadata' }, 'metadataUrl', t.saml.urlInvalid],
    [
      'credentials in the URL',
      { metadataUrl: 'https://u:p@idp.example/m' },
      'metadataUrl',
      t.saml.urlInvalid,
    ],
    ['a fragment', { metadataUrl: 'https://idp.example/m#x' }, 'metadataUrl', t.saml.urlInvalid],
    ['another scheme', { metadataUrl: 'file:///etc/passwd' }, 'metadataUrl', t.saml.urlInvalid],
    ['no XML', { source: 'xml', metadataXml: '  ' }, 'metadataXml', t.saml.xmlRequired],
    ['text that is not XML', { source: 'xml', metadataXml: 'entityID=x' }, 'metadataXml', t.saml.xmlInvalid],
    [
      'more than 1 MiB of XML',
      { source: 'xml', metadataXml: `<x>${'é'.repeat(600_000)}</x>` },
      'metadataXml',
      t.saml.xmlTooLarge,
    ],
  ] as const)('refuses %s', (_name, change, field, error) => {
    expect(decideSamlForm({ ...samlGood, ...change })).toEqual({ ok: false, field, error });
  });

  it('sends the trimmed URL, or the XML, with the switches and protocol saml', () => {
    expect(decideSamlForm(samlGood)).toEqual({
      ok: true,
      body: { protocol: 'saml', metadataUrl: 'https://idp.example/metadata', jit: true, enforce: false },
    });
    expect(
      decideSamlForm({ ...samlGood, source: 'xml', metadataXml: ' <md:EntityDescriptor/> ', enforce: true }),
    ).toEqual({
      ok: true,
      body: { protocol: 'saml', metadataXml: '<md:EntityDescriptor/>', jit: true, enforce: true },
    });
  });
});
