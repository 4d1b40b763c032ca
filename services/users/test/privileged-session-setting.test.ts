import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.ts';

/**
 * PRIVILEGED_SESSION_MAX_AGE, one name for the identity and the user service: the user service's
 * old name (PRIVILEGED_SESSION_MAX_AGE_MINUTES, in minutes) is still read for one release, as the
 * minutes it meant, with one warning.
 */

function withWarnings<T>(run: () => T): { value: T | undefined; error: string; lines: string[] } {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    return { value: run(), error: '', lines };
  } catch (error) {
    return { value: undefined, error: (error as Error).message, lines };
  } finally {
    spy.mockRestore();
  }
}

describe('PRIVILEGED_SESSION_MAX_AGE (user service)', () => {
  it('reads the new name, a duration; one hour by default', () => {
    expect(loadConfig({}).privilegedSessionMaxAgeMs).toBe(3_600_000);
    expect(loadConfig({ PRIVILEGED_SESSION_MAX_AGE: '90s' }).privilegedSessionMaxAgeMs).toBe(90_000);
  });

  it('the old name still works, as minutes (fractions too), with one warning naming the new one', () => {
    const run = withWarnings(() => loadConfig({ PRIVILEGED_SESSION_MAX_AGE_MINUTES: '0.5' }));
    expect(run.value?.privilegedSessionMaxAgeMs).toBe(30_000);
    const lines = run.lines.filter((l) => l.includes('PRIVILEGED_SESSION_MAX_AGE'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'warn',
      setting: 'PRIVILEGED_SESSION_MAX_AGE_MINUTES',
      replacement: 'PRIVILEGED_SESSION_MAX_AGE',
    });
  });

  it('the new name wins when both are set', () => {
    const run = withWarnings(() =>
      loadConfig({ PRIVILEGED_SESSION_MAX_AGE: '5m', PRIVILEGED_SESSION_MAX_AGE_MINUTES: '120' }),
    );
    expect(run.value?.privilegedSessionMaxAgeMs).toBe(300_000);
  });

  it('a malformed value refuses the start, naming the setting and not repeating the value', () => {
    const bad = [
      { env: { PRIVILEGED_SESSION_MAX_AGE: 'an-hour-or-so' }, name: 'PRIVILEGED_SESSION_MAX_AGE' },
      {
        env: { PRIVILEGED_SESSION_MAX_AGE_MINUTES: 'an-hour-or-so' },
        name: 'PRIVILEGED_SESSION_MAX_AGE_MINUTES',
      },
      { env: { PRIVILEGED_SESSION_MAX_AGE_MINUTES: '100000' }, name: 'PRIVILEGED_SESSION_MAX_AGE_MINUTES' },
    ];
    for (const { env, name } of bad) {
      const run = withWarnings(() => loadConfig(env));
      expect(run.value).toBeUndefined();
      expect(run.error).toContain(name);
      expect(run.error).not.toContain('an-hour-or-so');
      expect(run.error).not.toContain('100000');
    }
  });
});
