import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IDP_CERT, IDP_NEXT_CERT, idpMetadata, OTHER_CERT } from '../../test/saml-fixtures.ts';
import { SAML_METADATA_MAX_BYTES } from '@acme/users-contract/console-sso';
import { certificateFacts, parseSamlIdpMetadata } from './saml-metadata.ts';

const problemOf = (xml: string) => {
  try {
    parseSamlIdpMetadata(xml);
    return 'accepted';
  } catch (error) {
    return (error as { problem?: string }).problem ?? String(error);
  }
};

describe('SAML IdP metadata parsing', () => {
  it('takes the entity id, the HTTP-Redirect SSO URL and the signing certificate only', () => {
    const parsed = parseSamlIdpMetadata(idpMetadata());
    expect(parsed).toEqual({
      entityId: 'https://idp.initech.example/metadata',
      ssoUrl: 'https://idp.initech.example/sso',
      certificates: [new X509Certificate(IDP_CERT).toString().trim()],
    });
  });

  it('keeps both certificates of a rollover, and one copy of a certificate listed twice', () => {
    expect(
      parseSamlIdpMetadata(idpMetadata({ certificates: [IDP_CERT, IDP_NEXT_CERT] })).certificates,
    ).toHaveLength(2);
    expect(
      parseSamlIdpMetadata(idpMetadata({ certificates: [IDP_CERT, IDP_CERT] })).certificates,
    ).toHaveLength(1);
  });

  it('reads the IdP out of an EntitiesDescriptor, and refuses one with two IdPs', () => {
    const inner = (id: string) =>
      idpMetadata({ entityId: id }).replace('<?xml version="1.0" encoding="UTF-8"?>', '');
    const one = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${inner('https://a.example')}</md:EntitiesDescriptor>`;
    expect(parseSamlIdpMetadata(one).entityId).toBe('https://a.example');
    const two = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${inner('https://a.example')}${inner('https://b.example')}</md:EntitiesDescriptor>`;
    expect(problemOf(two)).toBe('several_idps');
  });

  it.each([
    [
      'a DTD (entity expansion, "billion laughs")',
      idpMetadata({ prolog: '<!DOCTYPE lolz [<!ENTITY lol "lol">]>' }),
      'dtd',
    ],
    [
      'an external entity (XXE)',
      idpMetadata({ prolog: '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>' }),
      'dtd',
    ],
    ['text that is not XML', 'this is not xml <', 'not_xml'],
    ['unclosed elements', '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">', 'not_xml'],
    ['JSON', '{"entityID":"x"}', 'not_xml'],
    ['an SP only', idpMetadata().replace(/IDPSSODescriptor/g, 'SPSSODescriptor'), 'not_idp_metadata'],
    ['no entity id', idpMetadata({ entityId: '' }), 'no_entity_id'],
    ['no HTTP-Redirect SSO endpoint', idpMetadata({ postOnly: true }), 'no_redirect_sso'],
    ['an SSO URL that is not http(s)', idpMetadata({ ssoUrl: 'javascript:alert(1)' }), 'sso_url_invalid'],
    ['no signing certificate', idpMetadata({ certificates: [] }), 'no_signing_certificate'],
    [
      'a certificate that is not one',
      idpMetadata({ certificates: ['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----'] }),
      'certificate_invalid',
    ],
    [
      'three signing certificates',
      idpMetadata({ certificates: [IDP_CERT, IDP_NEXT_CERT, OTHER_CERT] }),
      'too_many_certificates',
    ],
    [
      'more than 1 MiB',
      idpMetadata().replace(
        '</md:EntityDescriptor>',
        `<!--${'x'.repeat(SAML_METADATA_MAX_BYTES)}--></md:EntityDescriptor>`,
      ),
      'too_large',
    ],
  ])('refuses %s', (_name, xml, problem) => {
    expect(problemOf(xml)).toBe(problem);
  });

  it('counts a KeyDescriptor without `use` as signing, and never an encryption-only key', () => {
    const xml = idpMetadata({ certificates: [IDP_CERT] });
    expect(parseSamlIdpMetadata(xml).certificates).toHaveLength(1);
    const unmarked = xml.replace('<md:KeyDescriptor use="encryption">', '<md:KeyDescriptor>');
    expect(parseSamlIdpMetadata(unmarked).certificates).toHaveLength(2);
  });

  it("shows a certificate's SHA-256 fingerprint and validity", () => {
    const facts = certificateFacts(IDP_CERT);
    expect(facts.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(Date.parse(facts.notAfter)).toBeGreaterThan(Date.parse(facts.notBefore));
    expect(facts.subject).toContain('Initech');
  });
});
