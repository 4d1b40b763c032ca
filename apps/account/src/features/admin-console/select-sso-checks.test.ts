import { describe, expect, it } from 'vitest';
import { consoleCopy } from './copy.ts';
import { selectSsoChecks } from './select-sso-checks.ts';
import { formatDate } from './use-load.ts';

const t = consoleCopy.sso;

describe('selectSsoChecks', () => {
  it.each([
    [
      'a passed check with what it found',
      { check: 'issuer', ok: true, reason: null, value: 'https://idp.example' },
      { label: t.checks.issuer, ok: true, detail: t.found('https://idp.example') },
    ],
    [
      'the key count',
      { check: 'jwks', ok: true, reason: null, value: '2' },
      { label: t.checks.jwks, ok: true, detail: t.keys('2') },
    ],
    [
      'a failure with its reason and what was found',
      { check: 'issuer', ok: false, reason: 'mismatch', value: 'https://evil.example' },
      {
        label: t.checks.issuer,
        ok: false,
        detail: `${t.reasons.mismatch}. ${t.found('https://evil.example')}`,
      },
    ],
    [
      'a failure with its reason only',
      { check: 'discovery', ok: false, reason: 'timeout', value: null },
      { label: t.checks.discovery, ok: false, detail: t.reasons.timeout },
    ],
    [
      'a reason the app does not know, as sent',
      { check: 'token_endpoint', ok: false, reason: 'odd', value: null },
      { label: t.checks.token_endpoint, ok: false, detail: 'odd' },
    ],
    [
      'a passed check with nothing to show',
      { check: 'authorization_endpoint', ok: true, reason: null, value: null },
      { label: t.checks.authorization_endpoint, ok: true, detail: null },
    ],
  ] as const)('%s', (_name, check, row) => {
    const { rows } = selectSsoChecks({ ok: check.ok, checks: [check] });
    expect(rows).toEqual([{ key: check.check, ...row }]);
  });

  it('sums up: every check passed, or not', () => {
    expect(selectSsoChecks({ ok: true, checks: [] }).summary).toBe(t.connectionOk);
    expect(selectSsoChecks({ ok: false, checks: [] }).summary).toBe(t.connectionFailed);
  });
});

describe('selectSsoChecks for SAML metadata', () => {
  it.each([
    [
      'the certificate count',
      { check: 'signing_certificate', ok: true, reason: null, value: '2' },
      { label: t.checks.signing_certificate, ok: true, detail: t.certificateCount('2') },
    ],
    [
      'the earliest expiry as a date',
      { check: 'certificate_expiry', ok: true, reason: null, value: '2046-11-21T00:00:00.000Z' },
      {
        label: t.checks.certificate_expiry,
        ok: true,
        detail: t.validUntil(formatDate('2046-11-21T00:00:00.000Z')),
      },
    ],
    [
      'an expired certificate',
      { check: 'certificate_expiry', ok: false, reason: 'expired', value: '2021-01-01T00:00:00.000Z' },
      {
        label: t.checks.certificate_expiry,
        ok: false,
        detail: `${t.reasons.expired}. ${t.found('2021-01-01T00:00:00.000Z')}`,
      },
    ],
    [
      'metadata refused for its DTD',
      { check: 'metadata', ok: false, reason: 'dtd', value: null },
      { label: t.checks.metadata, ok: false, detail: t.reasons.dtd },
    ],
    [
      'an SSO URL over plain http',
      { check: 'sso_url', ok: false, reason: 'not_https', value: 'http://idp.example/sso' },
      {
        label: t.checks.sso_url,
        ok: false,
        detail: `${t.reasons.not_https}. ${t.found('http://idp.example/sso')}`,
      },
    ],
  ] as const)('%s', (_name, check, row) => {
    expect(selectSsoChecks({ ok: check.ok, checks: [check] }).rows).toEqual([{ key: check.check, ...row }]);
  });
});
