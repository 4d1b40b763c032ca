import { SAML_METADATA_MAX_BYTES } from '@acme/users-contract/console-sso';
import { X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';

// An organisation's SAML 2.0 IdP metadata (issue 26), as its IT admin pastes it or publishes it at
// a URL. The XML comes from outside, so it is read defensively: at most 1 MiB, no document type
// declaration at all (no DTD, no entities, so no entity expansion or external entity), a parser
// error is a refusal, and only what we use is taken from it: the entity id, the HTTP-Redirect
// single sign-on URL and the signing certificates (one, or two during a rollover).

/** At most this many signing certificates: the current one and the next (a rollover). */
const SAML_MAX_CERTIFICATES = 2;

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const REDIRECT_BINDING = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** Why metadata was refused: a word the API's message and the console's copy are keyed by. */
export type SamlMetadataProblem =
  | 'too_large'
  | 'dtd'
  | 'not_xml'
  | 'not_idp_metadata'
  | 'several_idps'
  | 'no_entity_id'
  | 'no_redirect_sso'
  | 'sso_url_invalid'
  | 'no_signing_certificate'
  | 'certificate_invalid'
  | 'too_many_certificates';

const SAML_METADATA_PROBLEMS: Record<SamlMetadataProblem, string> = {
  too_large: `the metadata is larger than ${SAML_METADATA_MAX_BYTES / 1024} KiB`,
  dtd: 'the metadata has a document type declaration (DTD or entities), which is not accepted',
  not_xml: 'the metadata is not well-formed XML',
  not_idp_metadata: 'the metadata describes no SAML 2.0 identity provider (no IDPSSODescriptor)',
  several_idps: 'the metadata describes several identity providers; give the one for this organisation',
  no_entity_id: 'the metadata has no entityID',
  no_redirect_sso: 'the identity provider has no SingleSignOnService with the HTTP-Redirect binding',
  sso_url_invalid: 'the single sign-on URL is not an http(s) URL',
  no_signing_certificate: 'the identity provider publishes no signing certificate',
  certificate_invalid: 'a signing certificate is not a valid X.509 certificate',
  too_many_certificates: `the identity provider publishes more than ${SAML_MAX_CERTIFICATES} signing certificates`,
};

export class SamlMetadataError extends Error {
  readonly problem: SamlMetadataProblem;
  constructor(problem: SamlMetadataProblem) {
    super(SAML_METADATA_PROBLEMS[problem]);
    this.problem = problem;
  }
}

export interface SamlIdpMetadata {
  entityId: string;
  ssoUrl: string;
  /** PEM, in the order the metadata lists them, duplicates removed. */
  certificates: string[];
}

/** What a person may see of a certificate: never more than public facts. */
export interface CertificateFacts {
  /** SHA-256 fingerprint, colon-separated hex (as IdP consoles show it). */
  fingerprint: string;
  notBefore: string;
  notAfter: string;
  subject: string;
}

export function certificateFacts(pem: string): CertificateFacts {
  const cert = new X509Certificate(pem);
  return {
    fingerprint: cert.fingerprint256,
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    subject: cert.subject.replace(/\n/g, ', ').slice(0, 500),
  };
}

function elements(
  parent: { getElementsByTagNameNS(ns: string, name: string): unknown },
  ns: string,
  name: string,
) {
  const list = parent.getElementsByTagNameNS(ns, name) as ArrayLike<Element>;
  return Array.from(list);
}

/** Parses IdP metadata, or throws SamlMetadataError saying what is wrong with it. */
export function parseSamlIdpMetadata(xml: string): SamlIdpMetadata {
  if (Buffer.byteLength(xml, 'utf8') > SAML_METADATA_MAX_BYTES) throw new SamlMetadataError('too_large');
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlMetadataError('dtd');
  let parseFailed = false;
  const fail = () => {
    parseFailed = true;
  };
  const doc = new DOMParser({
    errorHandler: { warning: fail, error: fail, fatalError: fail },
  }).parseFromString(xml, 'text/xml');
  if (parseFailed || !doc?.documentElement) throw new SamlMetadataError('not_xml');

  const entities = elements(doc, MD, 'EntityDescriptor').filter(
    (e) => elements(e, MD, 'IDPSSODescriptor').length > 0,
  );
  if (entities.length === 0) throw new SamlMetadataError('not_idp_metadata');
  if (entities.length > 1) throw new SamlMetadataError('several_idps');
  const entity = entities[0]!;
  const entityId = (entity.getAttribute('entityID') ?? '').trim();
  if (entityId.length === 0 || entityId.length > 1024) throw new SamlMetadataError('no_entity_id');

  const idp = elements(entity, MD, 'IDPSSODescriptor').find((d) =>
    (d.getAttribute('protocolSupportEnumeration') ?? '').split(/\s+/).includes(PROTOCOL),
  );
  if (!idp) throw new SamlMetadataError('not_idp_metadata');

  const sso = elements(idp, MD, 'SingleSignOnService').find(
    (s) => s.getAttribute('Binding') === REDIRECT_BINDING,
  );
  if (!sso) throw new SamlMetadataError('no_redirect_sso');
  const ssoUrl = (sso.getAttribute('Location') ?? '').trim();
  if (!isWebUrl(ssoUrl)) throw new SamlMetadataError('sso_url_invalid');

  const certificates: string[] = [];
  for (const key of elements(idp, MD, 'KeyDescriptor')) {
    const use = key.getAttribute('use');
    if (use && use !== 'signing') continue;
    for (const node of elements(key, DS, 'X509Certificate')) {
      const pem = toPem(node.textContent ?? '');
      if (!certificates.includes(pem)) certificates.push(pem);
    }
  }
  if (certificates.length === 0) throw new SamlMetadataError('no_signing_certificate');
  if (certificates.length > SAML_MAX_CERTIFICATES) throw new SamlMetadataError('too_many_certificates');
  return { entityId, ssoUrl, certificates };
}

function isWebUrl(raw: string): boolean {
  if (raw.length === 0 || raw.length > 2000) return false;
  try {
    const url = new URL(raw);
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** A base64 DER certificate as PEM, checked to be an X.509 certificate. */
function toPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  if (body.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) {
    throw new SamlMetadataError('certificate_invalid');
  }
  try {
    return new X509Certificate(Buffer.from(body, 'base64')).toString().trim();
  } catch {
    throw new SamlMetadataError('certificate_invalid');
  }
}
