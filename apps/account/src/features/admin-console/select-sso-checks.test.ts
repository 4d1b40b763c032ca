import { describe, expect, it } from 'vitest';
import { consoleCopy } from './copy.ts';
import { selectSsoChecks } from './select-sso-checks.ts';

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
