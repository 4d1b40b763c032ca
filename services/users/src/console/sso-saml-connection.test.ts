import { describe, expect, it } from 'vitest';
import { IDP_CERT, IDP_NEXT_CERT, idpMetadata } from '../../test/saml-fixtures.ts';
import { testSamlConnection } from './sso-saml-connection.ts';

const policy = { httpHosts: [], allowPrivate: false, timeoutMs: 1000 };
const at = (iso: string) => new Date(iso);

describe('Test connection for SAML metadata (pasted)', () => {
  it('passes valid metadata, naming the earliest certificate expiry', async () => {
    const checks = await testSamlConnection(
      { xml: idpMetadata({ certificates: [IDP_CERT, IDP_NEXT_CERT] }) },
      policy,
      at('2030-01-01T00:00:00Z'),
    );
    expect(checks.every((c) => c.ok)).toBe(true);
    expect(checks.find((c) => c.check === 'certificate_expiry')!.value).toMatch(/^20(46|47)-/);
  });

  it('fails an expired certificate, and one not valid yet', async () => {
    const later = await testSamlConnection({ xml: idpMetadata() }, policy, at('2050-01-01T00:00:00Z'));
    expect(later.find((c) => c.check === 'certificate_expiry')).toMatchObject({
      ok: false,
      reason: 'expired',
    });
    const earlier = await testSamlConnection({ xml: idpMetadata() }, policy, at('2020-01-01T00:00:00Z'));
    expect(earlier.find((c) => c.check === 'certificate_expiry')).toMatchObject({
      ok: false,
      reason: 'not_yet_valid',
    });
  });

  it('refuses a URL the outbound policy forbids before any request (no https, private address)', async () => {
    const plain = await testSamlConnection({ url: 'http://idp.example/metadata' }, policy, new Date());
    expect(plain[0]).toMatchObject({ check: 'metadata', ok: false, reason: 'not_https' });
    const metadataService = await testSamlConnection(
      { url: 'https://169.254.169.254/latest/meta-data' },
      policy,
      new Date(),
    );
    expect(metadataService[0]).toMatchObject({ check: 'metadata', ok: false, reason: 'private_address' });
  });
});
