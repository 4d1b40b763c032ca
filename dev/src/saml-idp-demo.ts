import { SAML_IDP_CERT } from './saml-idp-keys.ts';

// Initech's IdP metadata as the demo seed stores it: what the SAML IdP stand-in (saml-idp.ts) serves
// at `<base>/metadata`, written here from its fixed dev certificate so that the seed need not wait
// for the stand-in to start.

/** Initech's IdP at `baseUrl` (`http://localhost:4521` plus the port offset). */
export function demoSamlIdpUrls(baseUrl: string): { entityId: string; metadataUrl: string; ssoUrl: string } {
  const base = baseUrl.replace(/\/+$/, '');
  return { entityId: `${base}/metadata`, metadataUrl: `${base}/metadata`, ssoUrl: `${base}/sso` };
}

/** The stand-in's IdP metadata: entity id, HTTP-Redirect single sign-on, the signing certificate. */
export function demoSamlIdpMetadata(baseUrl: string): string {
  const { entityId, ssoUrl } = demoSamlIdpUrls(baseUrl);
  const cert = SAML_IDP_CERT.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">`,
    '  <md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    '    <md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data>',
    `      <ds:X509Certificate>${cert}</ds:X509Certificate>`,
    '    </ds:X509Data></ds:KeyInfo></md:KeyDescriptor>',
    '    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>',
    `    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${ssoUrl}"/>`,
    '  </md:IDPSSODescriptor>',
    '</md:EntityDescriptor>',
  ].join('\n');
}
