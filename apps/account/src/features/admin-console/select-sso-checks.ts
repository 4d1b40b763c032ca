import type { SsoConnectionCheckId, SsoConnectionReport } from '@acme/users-contract/console-sso';
import { consoleCopy } from './copy.ts';
import { formatDate } from './use-load.ts';

// Test connection's report in words: one row per check, passed or failed, with what was found or
// why it failed. Pure.

const t = consoleCopy.sso;

export interface SsoCheckRow {
  key: string;
  label: string;
  ok: boolean;
  detail: string | null;
}

/** What a passed check found, in words: a key or certificate count, a date, or the value itself. */
function passedValue(check: SsoConnectionCheckId, value: string): string {
  if (check === 'jwks') return t.keys(value);
  if (check === 'signing_certificate') return t.certificateCount(value);
  if (check === 'certificate_expiry') return t.validUntil(formatDate(value));
  return t.found(value);
}

export function selectSsoChecks(report: SsoConnectionReport): { summary: string; rows: SsoCheckRow[] } {
  return {
    summary: report.ok ? t.connectionOk : t.connectionFailed,
    rows: report.checks.map((c) => {
      const found = c.value === null ? null : c.ok ? passedValue(c.check, c.value) : t.found(c.value);
      const why = c.reason === null ? null : (t.reasons[c.reason] ?? c.reason);
      return {
        key: c.check,
        label: t.checks[c.check],
        ok: c.ok,
        detail: c.ok ? found : [why, found].filter((part) => part !== null).join('. '),
      };
    }),
  };
}
