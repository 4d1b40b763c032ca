import { afterEach, describe, expect, it } from 'vitest';
import { startLoadBalancer } from '@acme/cluster/nginx-process';
import { Browser, createUser, DEMO_PASSWORD, login, startHarness, type Harness } from '../harness.ts';

/**
 * The per-IP password-failure limit (IDENTITY_IP_FAILURE_LIMIT) keys on the client's address as
 * TRUST_PROXY decides it. A client writes its own X-Forwarded-For: only the entries the
 * trusted proxies wrote may be taken, or every failure could come "from" a new address.
 */
const LIMIT = 5;

let claims = 0;

/** A browser that claims a new address in X-Forwarded-For on every request. */
class SpoofingBrowser extends Browser {
  private readonly claim: (n: number) => string;
  constructor(base: string, claim: (n: number) => string = (n) => `198.51.100.${n}`) {
    super(base);
    this.claim = claim;
  }
  override request(...[method, path, opts = {}]: Parameters<Browser['request']>) {
    claims += 1;
    return super.request(method, path, {
      ...opts,
      headers: { ...opts.headers, 'x-forwarded-for': this.claim(claims % 250) },
    });
  }
}

/** A browser whose requests come through a trusted proxy that names the client `address`. */
class ForwardedBrowser extends Browser {
  private readonly address: string;
  constructor(base: string, address: string) {
    super(base);
    this.address = address;
  }
  override request(...[method, path, opts = {}]: Parameters<Browser['request']>) {
    return super.request(method, path, {
      ...opts,
      headers: { ...opts.headers, 'x-forwarded-for': this.address },
    });
  }
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function service(trust: string): Promise<Harness> {
  const h = await startHarness({
    TRUST_PROXY: trust,
    IDENTITY_IP_FAILURE_LIMIT: String(LIMIT),
    IDENTITY_IP_FAILURE_WINDOW: '10m',
  });
  open.push(h);
  await createUser(h, 'victim@example.com');
  return h;
}

/**
 * Wrong passwords for distinct accounts, one browser each, in turn: their statuses. (In turn:
 * this file tests whose address is counted; the limit's atomicity under parallel requests is
 * tested with the throttle, and over HTTP at the end of this file.)
 */
async function spray(browsers: Browser[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const [i, b] of browsers.entries())
    statuses.push((await login(b, `spray${i}@example.com`, 'wrong password')).status);
  return statuses;
}

const LIMITED = [...Array<number>(LIMIT).fill(400), 429, 429, 429];

describe('client address behind a proxy (identity, per-IP password-failure limit)', () => {
  it('spoofed X-Forwarded-For behind the load balancer does not reset the per-IP failure limit', async () => {
    const h = await service('1');
    const lb = await startLoadBalancer([h.publicUrl]);
    open.push(lb);
    const browsers = Array.from({ length: LIMIT + 3 }, () => new SpoofingBrowser(lb.url));
    const statuses = await spray(browsers);
    // Each failure is counted against the one real client; the window fills and refuses the rest.
    expect(statuses).toEqual(LIMITED);
    const res = await login(new SpoofingBrowser(lb.url), 'victim@example.com', DEMO_PASSWORD);
    expect(res.status).toBe(429);
  });

  it('spoofed X-Forwarded-For from a client that is not a configured proxy is ignored', async () => {
    // Only 192.0.2.1 may tell a client's address; this test's connections come from 127.0.0.1.
    const h = await service('192.0.2.1');
    const browsers = Array.from({ length: LIMIT + 3 }, () => new SpoofingBrowser(h.publicUrl));
    expect(await spray(browsers)).toEqual(LIMITED);
    expect((await login(new SpoofingBrowser(h.publicUrl), 'victim@example.com')).status).toBe(429);
  });

  it('a left-most address prepended to the chain of a trusted proxy is ignored (hop count)', async () => {
    // A proxy that appends (nginx's $proxy_add_x_forwarded_for): the client's own entry comes
    // first, the address the proxy saw last. One hop trusted: only the last is taken.
    const h = await service('1');
    const browsers = Array.from(
      { length: LIMIT + 3 },
      () => new SpoofingBrowser(h.publicUrl, (n) => `198.51.100.${n}, 203.0.113.50`),
    );
    expect(await spray(browsers)).toEqual(LIMITED);
  });

  it('behind a configured proxy, each client it names has its own allowance', async () => {
    const h = await service('127.0.0.1');
    const first = new ForwardedBrowser(h.publicUrl, '203.0.113.7');
    for (let i = 0; i < LIMIT; i++)
      expect((await login(first, `a${i}@example.com`, 'wrong')).status).toBe(400);
    expect((await login(first, 'victim@example.com')).status).toBe(429);
    // Another client behind the same proxy is not affected.
    expect((await login(new ForwardedBrowser(h.publicUrl, '203.0.113.8'), 'victim@example.com')).status).toBe(
      200,
    );
  });
});

describe('the per-IP password-failure limit under parallel requests', () => {
  it('of 50 wrong passwords at once from one address (50 accounts), exactly the limit is checked; the rest get 429 with Retry-After', async () => {
    const h = await service('127.0.0.1');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        login(new ForwardedBrowser(h.publicUrl, '203.0.113.9'), `burst${i}@example.com`, 'wrong password'),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(LIMIT);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(50 - LIMIT);
    for (const r of limited) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right password from that address waits too; another address is not held up.
    expect((await login(new ForwardedBrowser(h.publicUrl, '203.0.113.9'), 'victim@example.com')).status).toBe(
      429,
    );
    expect(
      (await login(new ForwardedBrowser(h.publicUrl, '203.0.113.10'), 'victim@example.com')).status,
    ).toBe(200);
  });
});

describe('public URLs (identity)', () => {
  it('spoofed X-Forwarded-Host / Proto do not change the URLs a flow publishes', async () => {
    const h = await service('1');
    const b = new Browser(h.publicUrl);
    const res = await b.get('/self-service/login/browser', {
      accept: 'json',
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('evil.example');
    expect(res.body.ui.action.startsWith(`${h.config.publicUrl}/`)).toBe(true);
    const redirect = await b.get('/self-service/login/browser', {
      headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
    });
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).not.toContain('evil.example');
  });
});
