import { describe, expect, it } from 'vitest';
import type { Session } from '../../shared/identity-client/types.ts';
import { selectSessionRows } from './select-session-rows.ts';

const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const session = (id: string, device: object, authenticated_at = '2026-11-01T08:00:00.000Z') =>
  ({ id, authenticated_at, devices: [{ id: `d-${id}`, location: '', ...device }] }) as unknown as Session;
const NOW = '2026-11-25T12:00:00.000Z';

describe('selectSessionRows', () => {
  it('puts this device first (active now), then the others by last activity', () => {
    const rows = selectSessionRows(
      session('me', { ip_address: '192.0.2.1', user_agent: CHROME_MAC }),
      [
        session('old', {
          ip_address: '192.0.2.7',
          user_agent: FIREFOX_LINUX,
          first_seen_at: '2026-11-02T00:00:00.000Z',
          last_active_at: '2026-11-20T00:00:00.000Z',
        }),
        session('new', {
          ip_address: '192.0.2.8',
          user_agent: CHROME_MAC,
          first_seen_at: '2026-11-03T00:00:00.000Z',
          last_active_at: '2026-11-24T00:00:00.000Z',
        }),
      ],
      NOW,
    );
    expect(rows.map((r) => [r.id, r.current, r.browser, r.os, r.ip, r.lastActive])).toEqual([
      ['me', true, 'Chrome 131', 'macOS', '192.0.2.1', NOW],
      ['new', false, 'Chrome 131', 'macOS', '192.0.2.8', '2026-11-24T00:00:00.000Z'],
      ['old', false, 'Firefox 133', 'Linux', '192.0.2.7', '2026-11-20T00:00:00.000Z'],
    ]);
    expect(rows[0]!.firstSeen).toBe('2026-11-01T08:00:00.000Z');
  });

  it('never lists this device twice, and falls back to first seen without a recorded activity', () => {
    const me = session('me', {});
    const rows = selectSessionRows(
      me,
      [me, session('x', { first_seen_at: '2026-11-05T00:00:00.000Z' })],
      NOW,
    );
    expect(rows.map((r) => r.id)).toEqual(['me', 'x']);
    expect(rows[1]!.lastActive).toBe('2026-11-05T00:00:00.000Z');
  });
});
