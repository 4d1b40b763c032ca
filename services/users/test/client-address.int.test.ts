import { afterEach, describe, expect, it } from 'vitest';
import { startLoadBalancer } from '@acme/cluster/nginx-process';
import { startTestService, type TestUsersService } from './harness.ts';

/**
 * The per-IP limit of `GET /login/config` (LOGIN_CONFIG_RATE_LIMIT) keys on the client's address
 * as TRUST_PROXY decides it: never on an X-Forwarded-For entry the client wrote itself.
 */
const LIMIT = 4;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function service(trust: string): Promise<TestUsersService> {
  const svc = await startTestService({
    env: {
      TRUST_PROXY: trust,
      LOGIN_CONFIG_RATE_LIMIT: String(LIMIT),
      LOGIN_CONFIG_RATE_WINDOW_SECONDS: '60',
    },
  });
  open.push(svc);
  return svc;
}

/** `count` parallel requests to `base`, each claiming its own address: their statuses, sorted. */
async function spoofed(base: string, count: number, claim = (i: number) => `198.51.100.${i + 1}`) {
  const statuses = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const res = await fetch(`${base}/login/config?emailAddress=x%40acme.test`, {
        headers: { 'x-forwarded-for': claim(i) },
      });
      await res.body?.cancel();
      return res.status;
    }),
  );
  return statuses.sort();
}

/** Parallel requests per case: 50, of which only the limit's worth pass. */
const BURST = 50;
const LIMITED = [...Array<number>(LIMIT).fill(200), ...Array<number>(BURST - LIMIT).fill(429)];

describe('client address behind a proxy (user service, per-IP limit)', () => {
  it('spoofed X-Forwarded-For behind the load balancer does not reset the per-IP limit', async () => {
    const svc = await service('1');
    const lb = await startLoadBalancer([svc.publicUrl]);
    open.push(lb);
    expect(await spoofed(lb.url, BURST)).toEqual(LIMITED);
  });

  it('spoofed X-Forwarded-For from a client that is not a configured proxy is ignored', async () => {
    const svc = await service('10.0.0.0/8,192.0.2.1');
    expect(await spoofed(svc.publicUrl, BURST)).toEqual(LIMITED);
  });

  it('a left-most address prepended to the chain of a trusted proxy is ignored (hop count)', async () => {
    const svc = await service('1');
    expect(await spoofed(svc.publicUrl, BURST, (i) => `198.51.100.${i + 1}, 203.0.113.50`)).toEqual(LIMITED);
  });

  it('behind a configured proxy, each client it names has its own allowance', async () => {
    const svc = await service('127.0.0.0/8');
    expect(await spoofed(svc.publicUrl, LIMIT + 1, () => '203.0.113.7')).toEqual([
      ...Array<number>(LIMIT).fill(200),
      429,
    ]);
    expect(await spoofed(svc.publicUrl, LIMIT, () => '203.0.113.8')).toEqual(Array<number>(LIMIT).fill(200));
  });
});
