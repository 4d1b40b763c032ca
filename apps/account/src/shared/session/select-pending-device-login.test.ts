import { describe, expect, it } from 'vitest';
import { selectPendingDeviceLogin } from './select-pending-device-login.ts';

describe('selectPendingDeviceLogin', () => {
  it.each([
    ['l1', 'l1', 'l1'],
    ['l1', 'l2', null],
    ['l1', null, null],
    [null, 'l1', null],
  ] as const)('device %s, stored %s: %s', (device, stored, expected) => {
    expect(selectPendingDeviceLogin(device, stored)).toBe(expected);
  });
});
