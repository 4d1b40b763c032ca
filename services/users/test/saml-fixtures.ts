// SAML IdP metadata for the user service's tests (issue 26): built from two self-signed test
// certificates (20 years from 2026-11-26), with switches for each way metadata can be wrong.

export const IDP_CERT = `-----BEGIN CERTIFICATE-----
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

/** The next certificate of a rollover. */
export const IDP_NEXT_CERT = `-----BEGIN CERTIFICATE-----
MIIDRzCCAi+gAwIBAgIUQ07b5gsMqZWabzTJyfCuys5QIVAwDQYJKoZIhvcNAQEL
BQAwMzExMC8GA1UEAwwoSW5pdGVjaCBkZW1vIElkUCBuZXh0IChkZXZlbG9wbWVu
dCBvbmx5KTAeFw0yNjExMjYwMTQwMTZaFw00NjExMjEwMTQwMTZaMDMxMTAvBgNV
BAMMKEluaXRlY2ggZGVtbyBJZFAgbmV4dCAoZGV2ZWxvcG1lbnQgb25seSkwggEi
MA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQCWaoCGDCQRrPYjyGt69eCIB/FG
uKUlKf7sWUtgoQ1TEQhIq1ftHmzq+dAbmiTwxPSvHwKC2rfLykqqGH1ZW7j4t6Ku
jBC/14okCQb7yrrO90OHc5/H4yWjkW/VRCwdIgI2jefOneZGulQlSfkNCX/qjglt
Xmf57CcU0zeujadHxhm8hPk+upawIz167T5fNJNzji9bGeAGZFJgRJzRoozc1v/t
UKUJMgCjIPtAWtK2ktseQv24qg4fSwkMrDAfXlfibAMj1XmDfobCZJ+fNURDFsry
4Gj/AE/Llz5nOU0etl7JTkkBdOCWLu6myITapLNCMxQq/hzkp8Un43gVld0TAgMB
AAGjUzBRMB0GA1UdDgQWBBSI53YDxwltVdK3oKFS9ntS+gJQsTAfBgNVHSMEGDAW
gBSI53YDxwltVdK3oKFS9ntS+gJQsTAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3
DQEBCwUAA4IBAQB/TS2v/9rolGWXyEvShHDo6XgOrLYpBdZInAqrmU3LMEStzMkp
gwctBPMT44MXoptQW/vu3gU+c7JqkvKKOoWgHazHaxpJHhJg1RyZbz0kXA6Ymzuu
+wFeoYij0tAaGXW301kC2h30Jns0mCu0nyrvSHBFN/tfixbyUVFhKr/AbU9UEpqr
ACvfPP21G8YxqH+xeMP+wkWGWWoNNXKxJRx3YSl3DGUpztiPrlN1KvV09K4xO4L8
8oINLlL5Tpwn6ytIcW67HvRv13SZBn01ILWlP9hMN2aPRTpHEKHurZECaxOzxFF9
l9CzHmEov1umE0b4aTRPdwO7CmuMtL83iyIZ
-----END CERTIFICATE-----`;

/** A third, unrelated certificate. */
export const OTHER_CERT = `-----BEGIN CERTIFICATE-----
MIIDFzCCAf+gAwIBAgIUFLhhgLbS/b1NDHu0bBiqJZ/Y7lkwDQYJKoZIhvcNAQEL
BQAwGzEZMBcGA1UEAwwQQW5vdGhlciB0ZXN0IElkUDAeFw0yNjExMjYwMTQxNTda
Fw00NjExMjEwMTQxNTdaMBsxGTAXBgNVBAMMEEFub3RoZXIgdGVzdCBJZFAwggEi
MA0GCSqGSIb3DQEBAQUAA4IBDwAwggEKAoIBAQC+yHmm8IRpVBuCUEcjSJDabA4U
zWX9cCLuH1NkiHQbRX9s8n7VBWetP/Jj4slu9icgCSbq+CNCTPhm3q0RvC0ommvL
oLyzRiG4JBG7PExh3G37DqpTbVDct6SpndGF/g0JkUPLTsK9UdO1LbE6JlX6sMpM
RvyR83UCc8VzVEbYCwH03OzfD84oskt4REOhjYs/WTYZE1jUlZkYHToPtEgBnBB9
g7fxDifGmj+wXVUdgEpvuNGrNOzrfyb0Q4qVGrRitdg6v5EjIIFzBcP9WMaNMDMk
MS7TqtdBZzjBIrvQKxR4ODIc/Ark9A1ZsHuGpe8UBk68yDQ2s/R0+wzjScWZAgMB
AAGjUzBRMB0GA1UdDgQWBBTEI463LQPUbVVh+qVFe4Muh95CfjAfBgNVHSMEGDAW
gBTEI463LQPUbVVh+qVFe4Muh95CfjAPBgNVHRMBAf8EBTADAQH/MA0GCSqGSIb3
DQEBCwUAA4IBAQBis6TENkEEJrwJDPtMC2NtAtrkYihVX4zhaZ908x2ghYzuggut
TBg2p4SAxzSwq47MOtW6wAxZstEF6gvsGbnivrFwZNsAueTDi/nlZrzBUCXDhHm2
4SaB7iWhvyzTvEBjm0XWzIPGmM17ko/1tN0lR2cvR7C66JiFkfvY/GOh6Vg6i+1i
8Qd/owDzMMn1nBgdbW8/mbjWE8ONqu1AqiH7vk95uyzw+cvOpCPO8KNJm1Zb14gx
Vq/156EG7fTH6itubiEFxHLdEFIpcZwY7ANtvHT4x46fJgellQEzN2YPFozx1Lp+
I0aFnbCwAjPugXH5ShdZyLuuHcLdF/NKJEAI
-----END CERTIFICATE-----`;

const base64 = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

export interface MetadataOptions {
  entityId?: string;
  ssoUrl?: string;
  /** PEM certificates published for signing. */
  certificates?: string[];
  /** Leave out the HTTP-Redirect SingleSignOnService (only HTTP-POST). */
  postOnly?: boolean;
  /** Text put before the root element (a DOCTYPE, say). */
  prolog?: string;
}

export function idpMetadata(options: MetadataOptions = {}): string {
  const entityId = options.entityId ?? 'https://idp.initech.example/metadata';
  const ssoUrl = options.ssoUrl ?? 'https://idp.initech.example/sso';
  const keys = (options.certificates ?? [IDP_CERT])
    .map(
      (pem) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${base64(pem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  const binding = options.postOnly ? 'HTTP-POST' : 'HTTP-Redirect';
  return `<?xml version="1.0" encoding="UTF-8"?>${options.prolog ?? ''}
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${keys}
    <md:KeyDescriptor use="encryption"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${base64(IDP_NEXT_CERT)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${ssoUrl}/post"/>
    ${options.postOnly ? '' : `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:${binding}" Location="${ssoUrl}"/>`}
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}
