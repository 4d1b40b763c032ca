import { describe, expect, it } from 'vitest';
import { clientAddress, proxyTrust, trustProxySchema } from './proxy-trust.ts';

describe('trustProxySchema', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['0', false],
    ['1', 1],
    ['2', 2],
    ['10.0.0.0/8, 192.0.2.7', ['10.0.0.0/8', '192.0.2.7']],
    ['::1,fd00::/8', ['::1', 'fd00::/8']],
  ])('reads %s as %j', (value, expected) => {
    expect(trustProxySchema.parse(value)).toEqual(expected);
  });

  it('refuses true, which used to trust the left-most X-Forwarded-For entry the client writes', () => {
    const parsed = trustProxySchema.safeParse('true');
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/number of proxies/);
  });

  it.each(['11', 'yes', '10.0.0.0/33', 'proxy.internal', '1.2.3'])('refuses %s', (value) => {
    expect(trustProxySchema.safeParse(value).success).toBe(false);
  });
});

describe('clientAddress', () => {
  const hops = (n: number) => proxyTrust(n);

  it('without trust, is the connection peer whatever the header says', () => {
    expect(clientAddress('192.0.2.1', '203.0.113.9', proxyTrust(false))).toBe('192.0.2.1');
  });

  it('with 1 hop, is the right-most entry: the one the proxy wrote, not the ones the client prepended', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1, 203.0.113.9', hops(1))).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', ['198.51.100.1', '203.0.113.9'], hops(1))).toBe('203.0.113.9');
  });

  it('with 2 hops, is the second entry from the right; a short chain gives its left-most', () => {
    expect(clientAddress('10.0.0.2', '198.51.100.1, 203.0.113.9, 10.0.0.1', hops(2))).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', '203.0.113.9', hops(2))).toBe('203.0.113.9');
    expect(clientAddress('10.0.0.2', undefined, hops(2))).toBe('10.0.0.2');
  });

  it('with a list, walks left while the address is a listed proxy', () => {
    const trust = proxyTrust(['10.0.0.0/8', '::1']);
    expect(clientAddress('10.1.2.3', '198.51.100.1, 203.0.113.9, 10.0.0.1', trust)).toBe('203.0.113.9');
    expect(clientAddress('::ffff:10.1.2.3', '203.0.113.9', trust)).toBe('203.0.113.9');
    expect(clientAddress('::1', '203.0.113.9', trust)).toBe('203.0.113.9');
    // A peer that is not a listed proxy is the client, whatever it claims.
    expect(clientAddress('192.0.2.50', '203.0.113.9', trust)).toBe('192.0.2.50');
  });
});
