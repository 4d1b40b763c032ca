import type { SamlCertificateFacts } from '@acme/users-contract/console-sso';
import { consoleCopy } from './copy.ts';
import { formatDate } from './use-load.ts';

// A SAML IdP's signing certificates as the console lists them: fingerprint, expiry, and whether the
// IdP admin must act (expired, or expiring within 30 days while no later certificate is published).
// Pure: `now` is given.

const t = consoleCopy.sso.saml;
const SOON_MS = 30 * 24 * 3_600_000;

type CertificateState = 'valid' | 'expires_soon' | 'expired';

export interface CertificateRow {
  fingerprint: string;
  expires: string;
  state: CertificateState;
  status: string;
}

export function selectSamlCertificates(certificates: SamlCertificateFacts[], now: number): CertificateRow[] {
  const latest = Math.max(...certificates.map((c) => Date.parse(c.notAfter)));
  return certificates.map((c) => {
    const notAfter = Date.parse(c.notAfter);
    // During a rollover the next certificate is already published: the old one expiring is expected.
    const state: CertificateState =
      notAfter <= now
        ? 'expired'
        : notAfter - now < SOON_MS && notAfter === latest
          ? 'expires_soon'
          : 'valid';
    const status = state === 'expired' ? t.expired : state === 'expires_soon' ? t.expiresSoon : t.valid;
    return { fingerprint: c.fingerprint, expires: formatDate(c.notAfter), state, status };
  });
}
