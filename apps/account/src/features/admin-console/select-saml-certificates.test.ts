import { describe, expect, it } from 'vitest';
import { consoleCopy } from './copy.ts';
import { selectSamlCertificates } from './select-saml-certificates.ts';

const t = consoleCopy.sso.saml;
const NOW = Date.parse('2027-06-01T00:00:00.000Z');
const DAY = 24 * 3_600_000;
const cert = (notAfter: number, fingerprint = 'AA:BB') => ({
  fingerprint,
  subject: 'CN=idp',
  notBefore: '2026-01-01T00:00:00.000Z',
  notAfter: new Date(notAfter).toISOString(),
});

describe('selectSamlCertificates', () => {
  it.each([
    ['valid for long', [cert(NOW + 400 * DAY)], ['valid']],
    ['expired', [cert(NOW - DAY)], ['expired']],
    ['expiring at this very moment', [cert(NOW)], ['expired']],
    ['expiring within 30 days with no successor', [cert(NOW + 10 * DAY)], ['expires_soon']],
    [
      'expiring within 30 days, the next one published (rollover)',
      [cert(NOW + 10 * DAY), cert(NOW + 700 * DAY)],
      ['valid', 'valid'],
    ],
    ['an expired one beside its successor', [cert(NOW - DAY), cert(NOW + 700 * DAY)], ['expired', 'valid']],
  ] as const)('%s', (_name, certificates, states) => {
    expect(selectSamlCertificates([...certificates], NOW).map((r) => r.state)).toEqual(states);
  });

  it('says what the state means, and keeps the fingerprint', () => {
    const [expired, soon] = [
      selectSamlCertificates([cert(NOW - DAY, '01:02')], NOW)[0]!,
      selectSamlCertificates([cert(NOW + DAY)], NOW)[0]!,
    ];
    expect(expired).toMatchObject({ fingerprint: '01:02', status: t.expired });
    expect(soon.status).toBe(t.expiresSoon);
    expect(expired.expires.length).toBeGreaterThan(0);
  });
});
