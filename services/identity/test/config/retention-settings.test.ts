import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

const SETTINGS = [
  'SPENT_RECORDS_RETENTION_HOURS',
  'IDENTITY_ENDED_SESSIONS_RETENTION_DAYS',
  'SECURITY_EVENTS_RETENTION_DAYS',
] as const;

describe('retention settings of the identity service', () => {
  it('default to a day of spent records and a week of ended sessions', () => {
    const { retention } = loadConfig({});
    expect(retention).toEqual({
      spentMs: 24 * 3600_000,
      spentChallengesMs: 24 * 3600_000,
      spentAssertionsMs: 24 * 3600_000,
      endedSessionsMs: 7 * 24 * 3600_000,
    });
  });

  for (const name of SETTINGS)
    for (const value of ['0', '-1', 'a week', '1.5'])
      it(`refuses to start with ${name}=${value}, naming the setting`, () => {
        expect(() => loadConfig({ [name]: value })).toThrow(name);
      });

  it('a SAML clock skew longer than a day refuses to start, naming the setting; spent assertion ids outlive the skew', () => {
    expect(() => loadConfig({ IDENTITY_SAML_CLOCK_SKEW: '25h' })).toThrow('IDENTITY_SAML_CLOCK_SKEW');
    const { retention } = loadConfig({ SPENT_RECORDS_RETENTION_HOURS: '1', IDENTITY_SAML_CLOCK_SKEW: '2h' });
    expect(retention.spentAssertionsMs).toBe(2 * 3600_000);
  });
});
