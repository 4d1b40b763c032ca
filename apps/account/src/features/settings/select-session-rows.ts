import type { Session } from '../../shared/identity-client/types.ts';
import { selectDevice } from './select-device.ts';

// The sessions list: this device first, then the others, most recently active first.

export interface SessionRow {
  id: string;
  current: boolean;
  browser: string;
  os: string;
  ip: string;
  firstSeen: string;
  lastActive: string;
}

interface DeviceWithTimes {
  ip_address?: string;
  user_agent?: string;
  first_seen_at?: string;
  last_active_at?: string;
}

function row(session: Session, current: boolean, now: string): SessionRow {
  const device = (session.devices?.[0] ?? {}) as DeviceWithTimes;
  const { browser, os } = selectDevice(device.user_agent);
  const firstSeen = device.first_seen_at ?? session.authenticated_at ?? '';
  return {
    id: session.id,
    current,
    browser,
    os,
    ip: device.ip_address ?? '',
    firstSeen,
    // This device is active now; the others as last recorded (at most 5 minutes behind).
    lastActive: current ? now : (device.last_active_at ?? firstSeen),
  };
}

export function selectSessionRows(
  current: Session | null,
  others: readonly Session[],
  now: string,
): SessionRow[] {
  const rest = others
    .filter((s) => s.id !== current?.id)
    .map((s) => row(s, false, now))
    .sort((a, b) => b.lastActive.localeCompare(a.lastActive));
  return current ? [row(current, true, now), ...rest] : rest;
}
