import { X509Certificate } from 'node:crypto';
import { SAML_CONNECTION_CHECKS } from '@acme/users-contract/console-sso';
import { fetchSamlMetadata } from '../sso/saml-provider.ts';
import { parseSamlIdpMetadata, SamlMetadataError, type SamlIdpMetadata } from '../sso/saml-metadata.ts';
import { fail, isAllowedHttp, pass, type ConnectionCheck } from './sso-connection.ts';
import { OutboundError, type OutboundPolicy } from '@acme/service-kit/outbound';

// Test connection for a SAML provider: the IdP metadata as our service provider will use it. Each
// check says what it found (entity id, certificate count, the earliest expiry, the SSO URL) or why
// it failed, in the words of the console's copy.

const skipped = (from: number) => SAML_CONNECTION_CHECKS.slice(from).map((c) => fail(c, 'skipped'));

/** Runs the checks on metadata at `source.url` (fetched under the policy) or given as `source.xml`. */
export async function testSamlConnection(
  source: { url: string } | { xml: string },
  policy: OutboundPolicy,
  now: Date,
): Promise<ConnectionCheck[]> {
  const where = 'url' in source ? source.url : null;
  let metadata: SamlIdpMetadata;
  try {
    const xml = 'url' in source ? await fetchSamlMetadata(source.url, policy) : source.xml;
    metadata = parseSamlIdpMetadata(xml);
  } catch (error) {
    const reason =
      error instanceof SamlMetadataError
        ? error.problem
        : error instanceof OutboundError
          ? error.reason
          : 'unreachable';
    return [fail('metadata', reason, where), ...skipped(1)];
  }
  const certs = metadata.certificates.map((pem) => new X509Certificate(pem));
  const expired = certs.find((c) => new Date(c.validTo).getTime() <= now.getTime());
  const notYet = certs.find((c) => new Date(c.validFrom).getTime() > now.getTime());
  const earliest = certs
    .map((c) => new Date(c.validTo))
    .sort((a, b) => a.getTime() - b.getTime())[0]!
    .toISOString();
  const ssoUrl = metadata.ssoUrl;
  const httpsOk = ssoUrl.startsWith('https://') || isAllowedHttp(ssoUrl, policy);
  return [
    pass('metadata', where),
    pass('entity_id', metadata.entityId),
    pass('signing_certificate', String(certs.length)),
    expired
      ? fail('certificate_expiry', 'expired', new Date(expired.validTo).toISOString())
      : notYet
        ? fail('certificate_expiry', 'not_yet_valid', new Date(notYet.validFrom).toISOString())
        : pass('certificate_expiry', earliest),
    httpsOk ? pass('sso_url', ssoUrl) : fail('sso_url', 'not_https', ssoUrl),
  ];
}
