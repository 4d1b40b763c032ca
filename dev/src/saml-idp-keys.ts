// The SAML IdP stand-in's signing key pair (Initech, issue 26), fixed so that the demo data can name
// the IdP's certificate without waiting for the stand-in to start. DEVELOPMENT ONLY: the private key
// is public, in this repository; nothing but the stand-in may trust it.

/** RSA 2048, self-signed, valid for 20 years from 2026-11-26. */
export const DEMO_SAML_IDP_CERT = `-----BEGIN CERTIFICATE-----
MIIDPTCCAiWgAwIBAgIUPwbkmSXEYm5s1GxNWc7DB4kzA3swDQYJKoZIhvcNAQEL
BQAwLjEsMCoGA1UEAwwjSW5pdGVjaCBkZW1vIElkUCAoZGV2ZWxvcG1lbnQgb25s
eSkwHhcNMjYxMTI2MDE0MDE1WhcNNDYxMTIxMDE0MDE1WjAuMSwwKgYDVQQDDCNJ
bml0ZWNoIGRlbW8gSWRQIChkZXZlbG9wbWVudCBvbmx5KTCCASIwDQYJKoZIhvcN
AQEBBQADggEPADCCAQoCggEBAKTm64cLuPKlZu262RPZsXtmbu+akQMEbdGgkdYe
WMPfAJzrIMztowFI/hr+KhUESjDWT8ww0P23w+KmaRLufxJzGbPhg3BrUexRJvg0
QsqMHHGmcJSxES9LUx0p96k6U8KgKPRKfpRZpnErIiR1d/WM7XTAE25QFdCqcyCF
iq4VgiTUMSOr/DA0Fbh/g77+Tx2uvIacoBEauOdDnkBodVGPyWD3t8CTndgZmk/b
J+ZE7IAHrtzo5l45wA2rqe8F/8MROoVgHLdK3nqc0PDXUmBsYbUBs8r6DdvB83F9
/w+5XgfRNlylRqrzOnxI2R2Q9Q76BBWKAvMLA6pLJ0TPYQsCAwEAAaNTMFEwHQYD
VR0OBBYEFMEdpen5Z2QobbGs4oyhN8enll0tMB8GA1UdIwQYMBaAFMEdpen5Z2Qo
bbGs4oyhN8enll0tMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEB
ABw5CSoFCDkkbI6uM2UGrEjdAGoEoM22cIPiaBp0WNYZwjlKeIyT2SPogBHKr8EQ
OOuJs0+B9C5E9s2eoG5+ACBzely6gq7BBjwI0XTsL1Mw2C3fqN38XsKiRJyEFKTH
zJF3XLsisa6Er7y/r4oVuSPEhErW7v4U2OxsHluaGnIB7axKw5tdA1Pu/C8Vk/G9
69iM02Eg3QRaBTlp6oGVjysDd8lHhBv9YejxIuZWo1pvbKCMazhVnyCPJHwPk/s0
fX5EqfXhSdd0VLFLiFhFjxouTVsY/NZrBAVvG+TzJrzi9HEgi1FWV1Le17q8VGWX
rrMNs9EErLyS7jJsNHQuMBY=
-----END CERTIFICATE-----`;

export const DEMO_SAML_IDP_KEY = `-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCk5uuHC7jypWbt
utkT2bF7Zm7vmpEDBG3RoJHWHljD3wCc6yDM7aMBSP4a/ioVBEow1k/MMND9t8Pi
pmkS7n8Scxmz4YNwa1HsUSb4NELKjBxxpnCUsREvS1MdKfepOlPCoCj0Sn6UWaZx
KyIkdXf1jO10wBNuUBXQqnMghYquFYIk1DEjq/wwNBW4f4O+/k8drryGnKARGrjn
Q55AaHVRj8lg97fAk53YGZpP2yfmROyAB67c6OZeOcANq6nvBf/DETqFYBy3St56
nNDw11JgbGG1AbPK+g3bwfNxff8PuV4H0TZcpUaq8zp8SNkdkPUO+gQVigLzCwOq
SydEz2ELAgMBAAECggEAJgbeX4kTgFkmMEI7VvmHlSZdBMIHGMQHsyStHMxoudqO
IKGUMc3HHj+/4WelOq1/kl2Jj1PejfO3p2eqqWP4R7/lOHcTwXPuM2nPa8NZd63x
zT+NjKx8gwSCySHpa8v4jtQyPYuEPx+hY02IFRJFtIloJNk6YeDz9uennuNMxLHv
iVhlZaXGn1cI292IYVGWPckz9/0CvfEm7TnDCyafx0qdfyIm94tdKDHNNb5e6Nay
aslK6DFXP8ctHLYhKepYjC6qQNOk5Io7T+RY0iqH8P/26fR5BxRdEuRX84D6b+v7
6qxhXctmX2ACpA8H/iiwIOBoobD5OWL6r/8L+dgXgQKBgQDpH0NGjx48Cfhav5AJ
QLvNggmfY/TwbvLwQD/b0pqYkG81PqZlPmhqH/6Zcz/qkkUAFmpts/pRkAXrMPbL
dK4H2zWv1oe2+4O/ZUtfEtn6NXCTgZTXJsEPShmDreHCRjL27eZlXYPGIi88pre5
Rmbsm/qAXi4RKBYpWsc7B9LqwQKBgQC1FcLOZJinnqABl9E0SIeXWfb3rgwA9Wml
JEjIFoosz1DGG8j+u6eBgsPcq7GJiI0j3OO1kuYFAf6yDeS5WMMD8L86q+ZPIjkf
sORptfToLL8y8FcLb0xjFL4FBEjqS7HNp/aSSQXjeqYcW3Vx8N28D7ni6X0P0dSM
ed4SrL+6ywKBgQDLFRUCbsMkAnt8cs0DgoUYbmP7mpRSsBSq/w2ibkGHDqwSclV6
dXd4nA6rlx7jNjEt9lkY4GT8kL7XOHyGmUrSRUDrwbPQ0CLhpViXplCGC+/aUFRd
acFdlGvNrrixCX50ZqMDQwf8nuMPrxz2JkKbdPYwxdrTz1wfApn07sfrAQKBgBV4
IQKLVrX4zouhzkHen4TIO8mdrvqmHgJgTOi8E2HAqpjyTmA1K2TldgdBq+jcca9g
zvaGFhNd6y59CzMWXPiooGN6YfHb4t3pAQuvcPvd4kVNzWQjq/DLUsQRf/uXQdta
IJezZKlVr0AJb+E0Z3WWf7lxaUxo2kRVZojcRlcFAoGAYH718dqvhqnaeOy36i4F
VT0Rp0vRY4fc21V/F2PHvuZwO2XNkouDsFWVK2UVZhspg5KsZPkRg+i7H1YmAnIL
mM+cUTG+uO+kSTAU433pAJ53zEvedekbNH7UJO0q85FS5WZGAzh9ZfqjiFmUCVIy
By0afsEmTovPt7Ullshr+w4=
-----END PRIVATE KEY-----`;

/** Initech's IdP at `baseUrl` (`http://localhost:4521` plus the port offset). */
export function demoSamlIdpUrls(baseUrl: string): { entityId: string; metadataUrl: string; ssoUrl: string } {
  const base = baseUrl.replace(/\/+$/, '');
  return { entityId: `${base}/metadata`, metadataUrl: `${base}/metadata`, ssoUrl: `${base}/sso` };
}

/**
 * The stand-in's IdP metadata (entity id, HTTP-Redirect single sign-on, the signing certificate), as
 * the demo seed stores it for Initech.
 */
export function demoSamlIdpMetadata(baseUrl: string): string {
  const { entityId, ssoUrl } = demoSamlIdpUrls(baseUrl);
  const cert = DEMO_SAML_IDP_CERT.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
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
