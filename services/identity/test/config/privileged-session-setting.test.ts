import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';

/**
 * PRIVILEGED_SESSION_MAX_AGE, one name for the identity and the user service: the identity service's
 * old name (IDENTITY_PRIVILEGED_SESSION_MAX_AGE) is still read for one release, with one warning.
 */

/** The start-up warnings written while `run` reads the configuration. */
function warnings(run: () => unknown): string[] {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return lines.filter((l) => l.includes('PRIVILEGED_SESSION_MAX_AGE'));
}

afterEach(() => vi.restoreAllMocks());

describe('PRIVILEGED_SESSION_MAX_AGE (identity service)', () => {
  it('reads the new name, a duration; one hour by default', () => {
    expect(loadConfig({}).privilegedSessionMaxAgeMs).toBe(3_600_000);
    expect(loadConfig({ PRIVILEGED_SESSION_MAX_AGE: '15m' }).privilegedSessionMaxAgeMs).toBe(900_000);
  });

  it('the old name still works, with one warning naming the new one', () => {
    let ms = 0;
    const lines = warnings(() => {
      ms = loadConfig({ IDENTITY_PRIVILEGED_SESSION_MAX_AGE: '20m' }).privilegedSessionMaxAgeMs;
    });
    expect(ms).toBe(1_200_000);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'warn',
      setting: 'IDENTITY_PRIVILEGED_SESSION_MAX_AGE',
      replacement: 'PRIVILEGED_SESSION_MAX_AGE',
    });
  });

  it('the new name wins when both are set', () => {
    const config = loadConfig({
      PRIVILEGED_SESSION_MAX_AGE: '5m',
      IDENTITY_PRIVILEGED_SESSION_MAX_AGE: '2h',
    });
    expect(config.privilegedSessionMaxAgeMs).toBe(300_000);
  });

  it('a malformed value refuses the start, naming the setting and not repeating the value', () => {
    for (const env of [
      { PRIVILEGED_SESSION_MAX_AGE: 'an-hour-or-so' },
      { IDENTITY_PRIVILEGED_SESSION_MAX_AGE: 'an-hour-or-so' },
    ]) {
      let text = '';
      warnings(() => {
        try {
          loadConfig(env);
        } catch (error) {
          text = (error as Error).message;
        }
      });
      expect(text).toContain('PRIVILEGED_SESSION_MAX_AGE');
      expect(text).not.toContain('an-hour-or-so');
    }
  });
});
