import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PartSettings } from '@acme/service-kit/config';
import * as identity from '../../../services/identity/src/config.ts';
import * as oauth2 from '../../../services/oauth2/src/config.ts';
import * as users from '../../../services/users/src/config.ts';
import * as agent from '../../../services/agent/src/config.ts';
import * as account from '../../../apps/account/server/config.ts';

/**
 * A setting renamed so that it has one name across the parts keeps working under its old name for
 * one release: the value is used, and one warning line at start names the old and the new name,
 * never the value.
 */
interface Part {
  settings: PartSettings;
  loadConfig(env: Record<string, string | undefined>): unknown;
}
const PARTS: Part[] = [identity, oauth2, users, agent, account];

/** A valid value, unlike the default, for every renamed setting. */
const SAMPLES: Record<string, string> = {
  TRUST_PROXY: '10.9.8.0/24',
  USERS_ADMIN_URL: 'http://users-admin.internal:4456',
  SECURITY_EVENTS_RETENTION_DAYS: '31',
  SECURITY_EVENTS_CLEANUP_BATCH: '77',
  OAUTH2_PUBLIC_URL: 'https://auth.example.org',
  UPSTREAM_TIMEOUT_MS: '4321',
  USERS_PUBLIC_HOST: '0.0.0.0',
  AGENT_PUBLIC_URL: 'http://agent.internal:4466',
  AGENT_PUBLIC_PORT: '14466',
  AGENT_PUBLIC_HOST: '0.0.0.0',
  M365_AUTHORITY_URL: 'https://login.example.org',
  M365_OFFER_URL: 'https://offer.example.org/',
  PRIVILEGED_SESSION_MAX_AGE: '20m',
};

/** The sample under an old name whose unit differed (the user service's counted minutes). */
const OLD_SAMPLES: Record<string, string> = {
  PRIVILEGED_SESSION_MAX_AGE_MINUTES: '20',
};

const CASES = PARTS.flatMap((part) =>
  Object.entries(part.settings.renames).flatMap(([name, olds]) => olds.map((old) => ({ part, name, old }))),
);

let lines: string[];
beforeEach(() => {
  lines = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

describe('renamed settings', () => {
  it('every renamed setting has a sample value here', () => {
    expect(CASES.map((c) => c.name).filter((name) => !(name in SAMPLES))).toEqual([]);
  });

  it.each(CASES.map((c) => [c.part.settings.part, c.old, c.name, c] as const))(
    '%s: the old name %s still sets %s, with one warning naming both and not the value',
    (_part, old, name, { part }) => {
      const value = SAMPLES[name]!;
      const renamed = part.loadConfig({ [name]: value });
      expect(lines).toEqual([]);
      expect(renamed).not.toEqual(part.loadConfig({}));
      lines = [];
      const oldValue = OLD_SAMPLES[old] ?? value;
      expect(part.loadConfig({ [old]: oldValue })).toEqual(renamed);
      expect(lines).toHaveLength(1);
      const warning = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(warning).toMatchObject({
        level: 'warn',
        name: part.settings.part,
        setting: old,
        replacement: name,
      });
      expect(lines[0]).not.toContain(value);
      expect(lines[0]).not.toContain(oldValue);
    },
  );

  it('the new name wins when both are set', () => {
    const config = oauth2.loadConfig({
      ISSUER: 'https://old.example.org',
      OAUTH2_PUBLIC_URL: 'https://new.example.org',
    });
    expect(config.issuer).toBe('https://new.example.org');
  });

  it('a malformed value under an old name is refused, naming the setting', () => {
    expect(() => identity.loadConfig({ IDENTITY_TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
  });
});
