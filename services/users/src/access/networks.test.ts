import { describe, expect, it } from 'vitest';
import { addressInRanges, parseRange } from './networks.ts';

describe('trusted network ranges', () => {
  it('::/0 does not admit IPv4 clients, in any spelling; it admits every IPv6 client', () => {
    for (const client of [
      '203.0.113.9',
      '::ffff:203.0.113.9',
      '0:0:0:0:0:ffff:cb00:7109',
      '[::ffff:cb00:7109]',
    ]) {
      expect(addressInRanges(client, ['::/0']), client).toBe(false);
      expect(addressInRanges(client, ['::/64', '::ffff:0:0/95']), client).toBe(false);
    }
    expect(addressInRanges('2001:db8::1', ['::/0'])).toBe(true);
    expect(addressInRanges('::1', ['::/0'])).toBe(true);
  });

  it('0.0.0.0/0 does not admit IPv6 clients', () => {
    expect(addressInRanges('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
    expect(addressInRanges('203.0.113.9', ['0.0.0.0/0'])).toBe(true);
  });

  it('an IPv4-mapped client is checked as its IPv4 address against the IPv4 ranges', () => {
    expect(addressInRanges('::ffff:198.51.100.20', ['198.51.100.0/24'])).toBe(true);
    expect(addressInRanges('::FFFF:c633:6414', ['198.51.100.0/24'])).toBe(true);
    expect(addressInRanges('::ffff:203.0.113.9', ['198.51.100.0/24'])).toBe(false);
  });

  it('a range inside the IPv4-mapped block is saved as the IPv4 range it stands for', () => {
    expect(parseRange('::ffff:10.0.0.0/104')).toBe('10.0.0.0/8');
    expect(parseRange('::ffff:192.0.2.1')).toBe('192.0.2.1/32');
    expect(parseRange('::ffff:0:0/96')).toBe('0.0.0.0/0');
    expect(parseRange('::/0')).toBe('::/0');
    expect(parseRange('2001:DB8::/32')).toBe('2001:db8::/32');
    // A list stored before this rule is read the same way.
    expect(addressInRanges('10.1.2.3', ['::ffff:10.0.0.0/104'])).toBe(true);
    expect(addressInRanges('2001:db8::1', ['::ffff:10.0.0.0/104'])).toBe(false);
  });
});
