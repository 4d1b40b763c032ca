import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { typed } from '@acme/db';
import type { UsersDb } from '../../src/db-types.ts';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

const PER_TOKEN = 30;
const PER_IP = 40;
const MAX_RANGES = 5;

/**
 * The console's trusted networks section (ManageIPWhitelist), the console's rate limits and its
 * answer to an over-long path parameter. The user service trusts one proxy hop, so each request's
 * client address is the `X-Forwarded-For` value the test (as the load balancer) writes.
 */
describe('console API: trusted networks, rate limits, long path parameters', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  const tokens: Record<string, string> = {};
  const people: Record<string, { id: string; identityId: string }> = {};
  const path = () => `/console/organisations/${acme}/trusted-networks`;
  const from = (address: string) => ({ 'x-forwarded-for': address });

  beforeAll(async () => {
    stack = await startConsoleStack({
      env: {
        TRUST_PROXY: '1',
        CONSOLE_RATE_LIMIT_PER_TOKEN: String(PER_TOKEN),
        CONSOLE_RATE_LIMIT_PER_IP: String(PER_IP),
        CONSOLE_RATE_WINDOW_SECONDS: '60',
        TRUSTED_NETWORKS_MAX_RANGES: String(MAX_RANGES),
      },
      // Each test moves the user service's clock a rate window on: the tokens got before all of
      // them must outlive that.
      oauth2Env: { OAUTH2_ACCESS_TOKEN_TTL: '3600' },
    });
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    people.ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    people.grace = await stack.newUser(acme, 'acme.test', 'member');
    people.stranger = await stack.newUser(other, 'other.test', 'org-admin');
    for (const [name, person] of Object.entries(people)) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
  }, 60_000);
  afterAll(async () => stack?.close());
  // Each test starts in a fresh rate-limit window.
  beforeEach(() => stack.clock.freshWindow(60_000));

  const put = (body: unknown, address = '198.51.100.7', token = tokens.ada) =>
    stack.call(token, 'PUT', path(), body, from(address));

  it('an org-admin reads and sets IPv4 and IPv6 ranges; the list is canonical and the change is an event', async () => {
    const empty = await stack.call(tokens.ada, 'GET', path(), undefined, from('198.51.100.7'));
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ ranges: [], yourAddress: '198.51.100.7', updatedAt: null });

    const saved = await put({ ranges: ['198.51.100.0/24', '2001:DB8::/32', '192.0.2.1', '198.51.100.0/24'] });
    expect(saved.status).toBe(200);
    expect(saved.body.ranges).toEqual(['198.51.100.0/24', '2001:db8::/32', '192.0.2.1/32']);
    expect(saved.body.updatedAt).toEqual(expect.any(String));

    const events = await stack.call(
      tokens.ada,
      'GET',
      `/console/organisations/${acme}/events?type=trusted_networks.changed`,
      undefined,
      from('198.51.100.7'),
    );
    expect(events.body.events[0]).toMatchObject({
      type: 'trusted_networks.changed',
      actorKind: 'person',
      actorId: people.ada!.id,
      ip: '198.51.100.7',
      details: { after: '198.51.100.0/24 2001:db8::/32 192.0.2.1/32' },
    });

    const cleared = await put({ ranges: [] });
    expect(cleared.body.ranges).toEqual([]);
  });

  it('bad CIDR ranges and too many ranges get 400 {errorCode, message}, and nothing is saved', async () => {
    for (const bad of [
      '10.0.0.0/33',
      '2001:db8::/129',
      'not-an-ip',
      '10.0.0.0/8/8',
      '10.0.0.0/',
      '',
      '300.1.1.1',
    ]) {
      const res = await put({ ranges: [bad] });
      expect(res.status, bad).toBe(400);
      expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.stringContaining('CIDR') });
    }
    const tooMany = await put({
      ranges: Array.from({ length: MAX_RANGES + 1 }, (_, i) => `10.${i}.0.0/16`),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errorCode).toBe('INVALID_REQUEST');
    for (const body of [
      '{"ranges":',
      { ranges: 'x' },
      { ranges: ['10.0.0.0/8'], extra: 1 },
      { ranges: ['\u0000'] },
    ]) {
      const res = await http(`${stack.svc.publicUrl}${path()}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
    }
    const now = await stack.call(tokens.ada, 'GET', path());
    expect(now.body.ranges).toEqual([]);
  });

  it('self-lockout: a list that excludes the admin’s own address needs confirmLockout; with it, it is saved', async () => {
    const refused = await put({ ranges: ['203.0.113.0/24'] }, '198.51.100.7');
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      errorCode: 'LOCKOUT_CONFIRMATION_REQUIRED',
      message: expect.stringContaining('198.51.100.7'),
      yourAddress: '198.51.100.7',
    });
    expect((await stack.call(tokens.ada, 'GET', path())).body.ranges).toEqual([]);

    // From inside the new ranges no confirmation is needed.
    const inside = await put({ ranges: ['203.0.113.0/24'] }, '203.0.113.50');
    expect(inside.status).toBe(200);

    // From inside the current list, a new list that excludes the admin needs the confirmation.
    const unconfirmed = await put({ ranges: ['192.0.2.0/24'] }, '203.0.113.50');
    expect(unconfirmed.body.errorCode).toBe('LOCKOUT_CONFIRMATION_REQUIRED');
    const confirmed = await put({ ranges: ['192.0.2.0/24'], confirmLockout: true }, '203.0.113.50');
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.ranges).toEqual(['192.0.2.0/24']);
    // Now outside, the admin is locked out of the console too; from inside the list is cleared.
    expect((await put({ ranges: [] }, '203.0.113.50')).status).toBe(403);
    expect((await put({ ranges: [] }, '192.0.2.9')).status).toBe(200);
  });

  it('self-lockout cannot be dodged by a spoofed X-Forwarded-For: the address is the trusted hop’s', async () => {
    // The admin writes an address inside the new range; the load balancer appends the real one.
    const refused = await put({ ranges: ['203.0.113.0/24'] }, '203.0.113.50, 198.51.100.7');
    expect(refused.status).toBe(409);
    expect(refused.body.yourAddress).toBe('198.51.100.7');
  });

  it('needs ManageIPWhitelist, and one’s own organisation only', async () => {
    const member = await stack.call(tokens.grace, 'GET', path());
    expect(member.status).toBe(403);
    expect(member.body.errorCode).toBe('PERMISSION_DENIED');
    const write = await put({ ranges: [] }, '198.51.100.7', tokens.grace);
    expect(write.body.errorCode).toBe('PERMISSION_DENIED');
    for (const method of ['GET', 'PUT']) {
      const foreign = await stack.call(
        tokens.stranger,
        method,
        path(),
        method === 'PUT' ? { ranges: [] } : undefined,
      );
      expect(foreign.status).toBe(403);
      expect(foreign.body.errorCode).toBe('FORBIDDEN');
    }
    const anonymous = await stack.call(undefined, 'GET', path());
    expect(anonymous.status).toBe(401);
  });

  it('a member id of 10,000 characters gets 414 {errorCode, message}, not the router’s own shape', async () => {
    const long = 'a'.repeat(10_000);
    for (const url of [
      `/console/organisations/${acme}/members/${long}`,
      `/console/organisations/${long}/trusted-networks`,
    ]) {
      const res = await stack.call(tokens.ada, 'GET', url);
      expect(res.status).toBe(414);
      expect(res.body).toEqual({ errorCode: 'URI_TOO_LONG', message: expect.any(String) });
      expect(res.body.message).not.toContain('aaaa');
    }
  });

  it('a console token got inside the trusted network is refused from outside: it cannot read, nor widen the list to 0.0.0.0/0', async () => {
    const INSIDE = '198.51.100.7';
    const OUTSIDE = '203.0.113.9';
    expect((await put({ ranges: ['198.51.100.0/24'] }, INSIDE)).status).toBe(200);
    try {
      const members = `/console/organisations/${acme}/members`;
      expect((await stack.call(tokens.ada, 'GET', members, undefined, from(INSIDE))).status).toBe(200);
      for (const [method, url, body] of [
        ['GET', members, undefined],
        ['GET', '/console/me', undefined],
        ['GET', path(), undefined],
        ['PUT', path(), { ranges: ['0.0.0.0/0'], confirmLockout: true }],
      ] as const) {
        const refused = await stack.call(tokens.ada, method, url, body, from(OUTSIDE));
        expect(refused.status, `${method} ${url}`).toBe(403);
        expect(refused.body).toEqual({
          errorCode: 'NETWORK_NOT_TRUSTED',
          message: expect.stringContaining('trusted networks'),
        });
      }
      // An office address the caller writes itself does not pass: the trusted hop's entry counts.
      const spoofed = await stack.call(tokens.ada, 'GET', members, undefined, from(`${INSIDE}, ${OUTSIDE}`));
      expect(spoofed.body.errorCode).toBe('NETWORK_NOT_TRUSTED');
      expect((await stack.call(tokens.ada, 'GET', path(), undefined, from(INSIDE))).body.ranges).toEqual([
        '198.51.100.0/24',
      ]);
    } finally {
      expect((await put({ ranges: [] }, INSIDE)).status).toBe(200);
    }
  });

  it('/me refuses outside the network: a bearer token got inside reads no account and revokes nothing from outside', async () => {
    expect((await put({ ranges: ['198.51.100.0/24'] }, '198.51.100.7')).status).toBe(200);
    try {
      for (const [method, url] of [
        ['GET', '/me/account'],
        ['GET', '/me/connected-apps'],
        ['DELETE', '/me/connected-apps/platform'],
      ] as const) {
        const outside = await stack.call(tokens.grace, method, url, undefined, from('203.0.113.9'));
        expect(outside.status, `${method} ${url}`).toBe(403);
        expect(outside.body.errorCode).toBe('NETWORK_NOT_TRUSTED');
      }
      const inside = await stack.call(tokens.grace, 'GET', '/me/account', undefined, from('198.51.100.30'));
      expect(inside.status).toBe(200);
      expect(inside.body.email).toMatch(/@acme\.test$/);
      // Another organisation's member is not held by this list.
      const elsewhere = await stack.call(
        tokens.stranger,
        'GET',
        '/me/account',
        undefined,
        from('203.0.113.9'),
      );
      expect(elsewhere.status).toBe(200);
    } finally {
      expect((await put({ ranges: [] }, '198.51.100.7')).status).toBe(200);
    }
  });

  it('::/0 does not admit IPv4 clients: with only IPv6 ranges, every IPv4 caller is outside', async () => {
    const V6 = '2001:db8:7::5';
    const saved = await put({ ranges: ['::/0'] }, V6);
    expect(saved.status).toBe(200);
    try {
      expect((await stack.call(tokens.ada, 'GET', path(), undefined, from(V6))).status).toBe(200);
      for (const v4 of ['203.0.113.9', '::ffff:203.0.113.9', '198.51.100.7']) {
        const refused = await stack.call(tokens.ada, 'GET', path(), undefined, from(v4));
        expect(refused.status, v4).toBe(403);
        expect(refused.body.errorCode).toBe('NETWORK_NOT_TRUSTED');
      }
      const check = await http(`${stack.svc.adminUrl}/admin/trusted-networks/check`, {
        method: 'POST',
        json: { userId: people.grace!.id, clientAddress: '203.0.113.9' },
      });
      expect(check.status).toBe(403);
    } finally {
      expect((await put({ ranges: [] }, V6)).status).toBe(200);
    }
    // An IPv4 admin saving ::/0 is told it locks them out.
    const fromV4 = await put({ ranges: ['::/0'] }, '198.51.100.7');
    expect(fromV4.status).toBe(409);
    expect(fromV4.body.errorCode).toBe('LOCKOUT_CONFIRMATION_REQUIRED');
  });

  it(`whitespace variants of one console token share one budget: of 50 parallel calls, ${PER_TOKEN} pass`, async () => {
    const token = await stack.tokenFor(people.ada!.identityId);
    const spellings = [
      `Bearer ${token}`,
      `Bearer  ${token}`,
      `bearer ${token}`,
      `BEARER\t${token}`,
      `Bearer \t ${token}`,
    ];
    const answers = await Promise.all(
      // Each from its own address, so only the per-token counter can stop them.
      Array.from({ length: 50 }, (_, i) =>
        stack.call(undefined, 'GET', path(), undefined, {
          authorization: spellings[i % spellings.length]!,
          ...from(`192.0.2.${i + 1}`),
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(PER_TOKEN);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(50 - PER_TOKEN);
    expect(limited[0]!.body.errorCode).toBe('RATE_LIMITED');
    // The counter is keyed by a digest of the token, never the token or the header itself.
    const counters = await typed<UsersDb>(stack.db).selectFrom('rate_limits').selectAll().execute();
    expect(counters.length).toBeGreaterThan(0);
    expect(JSON.stringify(counters)).not.toContain(token);
  });

  it(`rate limit per token: of 50 parallel calls with one token, ${PER_TOKEN} pass and the rest get 429 with Retry-After`, async () => {
    const token = await stack.tokenFor(people.ada!.identityId);
    const answers = await Promise.all(
      // Each from its own address, so only the per-token counter can stop them.
      Array.from({ length: 50 }, (_, i) =>
        stack.call(token, 'GET', path(), undefined, from(`192.0.2.${i + 1}`)),
      ),
    );
    const limited = answers.filter((a) => a.status === 429);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(PER_TOKEN);
    expect(limited).toHaveLength(50 - PER_TOKEN);
    for (const a of limited) {
      expect(a.body).toEqual({ errorCode: 'RATE_LIMITED', message: expect.any(String) });
      expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another person's token is not held back by this one's budget.
    expect((await stack.call(tokens.ada, 'GET', path(), undefined, from('192.0.2.200'))).status).toBe(200);
  });

  it(`rate limit per address: of 50 parallel calls from one address, ${PER_IP} are served and the rest get 429`, async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        stack.call(undefined, 'GET', path(), undefined, from('198.51.100.99')),
      ),
    );
    expect(answers.filter((a) => a.status === 401)).toHaveLength(PER_IP);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(50 - PER_IP);
    expect(limited[0]!.body.errorCode).toBe('RATE_LIMITED');
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
    // A spoofed left-most entry does not buy a new budget.
    const spoofed = await stack.call(undefined, 'GET', path(), undefined, from('10.9.9.9, 198.51.100.99'));
    expect(spoofed.status).toBe(429);
  });

  it('the admin check answers 204 inside or without a list, 403 NETWORK_NOT_TRUSTED outside', async () => {
    const check = (json: unknown) =>
      http(`${stack.svc.adminUrl}/admin/trusted-networks/check`, { method: 'POST', json });
    expect((await check({ organisationId: acme, clientAddress: '203.0.113.1' })).status).toBe(204);
    await put({ ranges: ['2001:db8:40::/48'], confirmLockout: true });
    expect((await check({ userId: people.grace!.id, clientAddress: '2001:db8:40::9' })).status).toBe(204);
    expect((await check({ identityId: people.grace!.identityId, clientAddress: '203.0.113.1' })).status).toBe(
      403,
    );
    expect(
      (await check({ identityId: people.grace!.identityId, clientAddress: '2001:db8:40::1' })).status,
    ).toBe(204);
    expect((await check({ userId: people.grace!.id, clientAddress: '::ffff:203.0.113.1' })).body).toEqual({
      errorCode: 'NETWORK_NOT_TRUSTED',
      message: expect.stringContaining('trusted networks'),
    });
    // No address given: refused rather than let through.
    expect((await check({ organisationId: acme })).status).toBe(403);
    // Another organisation has no list.
    expect((await check({ userId: people.stranger!.id, clientAddress: '203.0.113.1' })).status).toBe(204);
    expect((await check({ userId: 'x'.repeat(40) })).status).toBe(400);

    // The operator clears a list an admin locked themselves out with (recorded as the operator's act).
    stack.clock.advance(1_000);
    const cleared = await http(`${stack.svc.adminUrl}/admin/organisations/${acme}/trusted-networks`, {
      method: 'DELETE',
    });
    expect(cleared.status).toBe(204);
    expect((await check({ userId: people.grace!.id, clientAddress: '203.0.113.1' })).status).toBe(204);
    const events = await stack.call(
      tokens.ada,
      'GET',
      `/console/organisations/${acme}/events?type=trusted_networks.changed`,
    );
    expect(events.body.events[0]).toMatchObject({ actorKind: 'operator', details: { after: '(none)' } });
  });
});
