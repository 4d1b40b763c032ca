import { typed } from '@acme/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorOrigin, recordEvent } from '../../src/events/events.ts';
import type { UsersDb } from '../../src/db-types.ts';
import { runWebhookRound } from '../../src/webhooks/worker.ts';
import { http, runCliJson, startTestService, type TestUsersService } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from '../console/console-harness.ts';
import { startReceiver, verified, type Receiver } from './receiver.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const DEVELOPMENT = { WEBHOOK_HTTP_HOSTS: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' };
const HOUR = 3600_000;

describe('webhooks: endpoints, signed deliveries, retries', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  let admin: { id: string; identityId: string; email: string };
  let member: { id: string; identityId: string };
  let adminToken = '';
  let memberToken = '';
  let strangerToken = '';
  const receivers: Receiver[] = [];
  const base = () => `/console/organisations/${acme}/webhooks`;
  const db = () => typed<UsersDb>(stack.db);
  const round = () =>
    runWebhookRound(stack.svc.app.context, (error) => {
      throw error;
    });
  const receiver = async (answer?: Receiver['answer'], answerTest?: Receiver['answerTest']) => {
    const r = await startReceiver(answer, answerTest);
    receivers.push(r);
    return r;
  };
  const event = (organisationId: string, details: Record<string, string> = {}) =>
    recordEvent(
      db(),
      operatorOrigin(),
      {
        organisationId,
        type: 'member.role_changed',
        subjectId: member.id,
        details: { role: 'admin', ...details },
      },
      stack.clock.now(),
    );
  /** Removes every endpoint of the organisation (each test starts without any). */
  const clear = async (organisationId = acme) => {
    await db().deleteFrom('webhook_endpoints').where('organisation_id', '=', organisationId).execute();
    // Past events are not for the next test's endpoints.
    await round();
  };

  beforeAll(async () => {
    stack = await startConsoleStack({ env: DEVELOPMENT });
    acme = await stack.newOrganisation('hooks.test');
    other = await stack.newOrganisation('elsewhere.test');
    admin = await stack.newUser(acme, 'hooks.test', 'org-admin');
    member = await stack.newUser(acme, 'hooks.test', 'member');
    const stranger = await stack.newUser(other, 'elsewhere.test', 'org-admin');
    adminToken = await stack.tokenFor(admin.identityId);
    memberToken = await stack.tokenFor(member.identityId);
    strangerToken = await stack.tokenFor(stranger.identityId);
  }, 90_000);
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await stack?.close();
  });

  it('an org-admin adds, lists, edits, pauses and removes an endpoint; the secret is shown once', async () => {
    const r = await receiver();
    const created = await stack.call(adminToken, 'POST', base(), {
      url: r.url,
      eventTypes: ['role.changed'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body.endpoint).toMatchObject({
      url: r.url,
      eventTypes: ['role.changed'],
      state: 'active',
    });
    const id = created.body.endpoint.id;
    const list = await stack.call(adminToken, 'GET', base());
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    expect(list.body.endpoints.map((e: any) => e.id)).toEqual([id]);
    const paused = await stack.call(adminToken, 'PATCH', `${base()}/${id}`, {
      state: 'paused',
      eventTypes: [],
    });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ state: 'paused', eventTypes: [] });
    // A paused endpoint is sent nothing.
    await event(acme);
    await round();
    expect(r.received).toHaveLength(0);
    // The secret is stored sealed, not as issued.
    const row = await db()
      .selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(created.body.secret.slice('whsec_'.length, 20));
    expect((await stack.call(adminToken, 'DELETE', `${base()}/${id}`)).status).toBe(204);
    const gone = await stack.call(adminToken, 'GET', `${base()}/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.errorCode).toBe('WEBHOOK_NOT_FOUND');
  });

  it('webhooks are an organisation setting: a member and another organisation are refused', async () => {
    expect((await stack.call(memberToken, 'GET', base())).body.errorCode).toBe('PERMISSION_DENIED');
    expect((await stack.call(strangerToken, 'GET', base())).status).toBe(403);
    const r = await receiver();
    const mine = await stack.call(adminToken, 'POST', base(), { url: r.url });
    const theirs = await stack.call(
      strangerToken,
      'PATCH',
      `/console/organisations/${other}/webhooks/${mine.body.endpoint.id}`,
      { state: 'paused' },
    );
    expect(theirs.status).toBe(404);
    await clear();
  });

  it('bad input is 400 with the console error shape, never a 500', async () => {
    const bad = [
      { url: 'not a url' },
      { url: 'ftp://127.0.0.1/x' },
      { url: 'http://127.0.0.1/x', eventTypes: ['no.such_type'] },
      { url: 'http://127.0.0.1/x', extra: true },
      JSON.parse('{"url":"http://127.0.0.1/x","__proto__":{"admin":true}}'),
      {},
    ];
    for (const body of bad) {
      const res = await stack.call(adminToken, 'POST', base(), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(['INVALID_REQUEST', 'WEBHOOK_URL_REFUSED']).toContain(res.body.errorCode);
    }
    const malformed = await http(`${stack.svc.publicUrl}${base()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: '{"url":',
    });
    expect(malformed.status).toBe(400);
    expect((await db().selectFrom('webhook_endpoints').select('id').execute()).length).toBe(0);
  });

  it('a receiver that fails the first two attempts gets the event on the third, signed (verified by standardwebhooks)', async () => {
    const r = await receiver((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    const created = await stack.call(adminToken, 'POST', base(), { url: r.url });
    const { secret, endpoint } = created.body;
    // A real change through the console: its event is queued in the same transaction.
    const changed = await stack.call(
      adminToken,
      'POST',
      `/console/organisations/${acme}/members/${member.id}/role`,
      {
        role: 'admin',
      },
    );
    expect(changed.status).toBe(200);
    await round();
    expect(r.received).toHaveLength(1);
    stack.clock.advance(6_000);
    await round();
    expect(r.received).toHaveLength(2);
    stack.clock.advance(25_000);
    await round();
    expect(r.received).toHaveLength(3);
    const ids = new Set(r.received.map((q) => q.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const payload = verified(secret, r.received[2]!);
    expect(payload.type).toBe('role.changed');
    expect(payload.data).toMatchObject({
      organisationId: acme,
      subjectId: member.id,
      sourceType: 'member.role_changed',
    });
    expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, r.received[2]!)).toThrow();
    const page = await stack.call(adminToken, 'GET', `${base()}/${endpoint.id}/deliveries?limit=10`);
    expect(page.status).toBe(200);
    expect(page.body.deliveries[0]).toMatchObject({
      eventType: 'role.changed',
      status: 'delivered',
      attempts: 3,
      lastResponseStatus: 200,
      lastError: null,
    });
    // Redelivery: the same event id again.
    const again = await stack.call(
      adminToken,
      'POST',
      `${base()}/${endpoint.id}/deliveries/${page.body.deliveries[0].id}/redeliver`,
    );
    expect(again.status).toBe(202);
    expect(again.body.delivery.status).toBe('pending');
    await round();
    expect(r.received).toHaveLength(4);
    expect(r.received[3]!.headers['webhook-id']).toBe(r.received[0]!.headers['webhook-id']);
    await clear();
  });

  it('50 events written in parallel arrive, each once by webhook-id, with two workers running at once', async () => {
    const r = await receiver();
    const { secret } = (await stack.call(adminToken, 'POST', base(), { url: r.url })).body;
    await Promise.all(Array.from({ length: 50 }, (_, i) => event(acme, { n: String(i) })));
    await Promise.all([round(), round()]);
    const ids = r.received.map((q) => String(q.headers['webhook-id']));
    expect(new Set(ids).size).toBe(50);
    expect(ids).toHaveLength(50);
    const numbers = r.received.map((q) => verified(secret, q).data.details.n).sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(50);
    await clear();
  });

  it('redirects are refused: a 3xx is a failed attempt, and its Location is never requested', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 302, location: target.url }));
    const { endpoint } = (await stack.call(adminToken, 'POST', base(), { url: r.url })).body;
    await event(acme);
    await round();
    expect(r.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const page = await stack.call(adminToken, 'GET', `${base()}/${endpoint.id}/deliveries`);
    expect(page.body.deliveries[0]).toMatchObject({ status: 'failed', lastResponseStatus: 302 });
    expect(page.body.deliveries[0].lastError).toMatch(/redirect/);
    await clear();
  });

  it('during a secret rotation both signatures are sent: the old and the new secret each verify', async () => {
    const r = await receiver();
    const created = (await stack.call(adminToken, 'POST', base(), { url: r.url })).body;
    const rotated = await stack.call(adminToken, 'POST', `${base()}/${created.endpoint.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.secret);
    await event(acme);
    await round();
    expect(r.received).toHaveLength(1);
    expect(String(r.received[0]!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(created.secret, r.received[0]!).type).toBe('role.changed');
    expect(verified(rotated.body.secret, r.received[0]!).type).toBe('role.changed');
    await clear();
  });

  it('a webhook URL that redirects is refused at save: created or changed, the redirect (to a private address) is never followed', async () => {
    // The redirect points at a loopback receiver: a metadata service or an internal API in production.
    const internal = await receiver();
    const redirecting = await receiver(undefined, () => ({ status: 307, location: internal.url }));
    const refused = await stack.call(adminToken, 'POST', base(), { url: redirecting.url });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ errorCode: 'WEBHOOK_URL_REFUSED', reason: 'redirect' });
    expect(refused.body.message).toMatch(/HTTP 307.*redirect/);
    expect(redirecting.tests).toHaveLength(1);
    expect(internal.tests).toHaveLength(0);
    expect(internal.received).toHaveLength(0);
    expect(await db().selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(0);

    // An endpoint whose URL is changed to the redirecting one keeps its URL.
    const good = await receiver();
    const created = await stack.call(adminToken, 'POST', base(), { url: good.url });
    expect(created.status).toBe(201);
    const moved = await stack.call(adminToken, 'PATCH', `${base()}/${created.body.endpoint.id}`, {
      url: redirecting.url,
    });
    expect(moved.status).toBe(400);
    expect(moved.body).toMatchObject({ errorCode: 'WEBHOOK_URL_REFUSED', reason: 'redirect' });
    expect(redirecting.tests).toHaveLength(2);
    expect(internal.tests).toHaveLength(0);
    const kept = await stack.call(adminToken, 'GET', `${base()}/${created.body.endpoint.id}`);
    expect(kept.body.url).toBe(good.url);
    await clear();
  });

  it('the test request at save is signed with the secret given back, and a receiver that does not answer 2xx is refused', async () => {
    const r = await receiver();
    const created = await stack.call(adminToken, 'POST', base(), { url: r.url });
    expect(created.status).toBe(201);
    expect(r.tests).toHaveLength(1);
    const test = verified(created.body.secret, r.tests[0]!);
    expect(test.type).toBe('webhook.test');
    // Not an event: nothing is queued for it.
    await round();
    expect(r.received).toHaveLength(0);

    const failing = await receiver(undefined, () => ({ status: 500 }));
    const answered500 = await stack.call(adminToken, 'POST', base(), { url: failing.url });
    expect(answered500.status).toBe(400);
    expect(answered500.body).toMatchObject({ errorCode: 'WEBHOOK_URL_REFUSED', reason: 'http_status' });
    expect(answered500.body.message).toMatch(/HTTP 500/);

    const gone = await receiver();
    await gone.close();
    const unreachable = await stack.call(adminToken, 'POST', base(), { url: gone.url });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body).toMatchObject({ errorCode: 'WEBHOOK_URL_REFUSED', reason: 'unreachable' });
    expect(await db().selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(1);
    await clear();
  });

  it('endpoint changes are console events (created, changed, paused, resumed, rotated, deleted), without the secret, and never delivered', async () => {
    const watcher = await receiver();
    const watching = await stack.call(adminToken, 'POST', base(), { url: watcher.url });
    expect(watching.status).toBe(201);
    await round();
    const r = await receiver();
    const other = await receiver();
    const created = await stack.call(adminToken, 'POST', base(), {
      url: `${r.url}?token=receiver-own-token`,
      eventTypes: ['role.changed'],
    });
    const id = created.body.endpoint.id;
    const edited = await stack.call(adminToken, 'PATCH', `${base()}/${id}`, {
      url: other.url,
      eventTypes: ['role.changed', 'member.removed'],
    });
    expect(edited.status).toBe(200);
    expect((await stack.call(adminToken, 'PATCH', `${base()}/${id}`, { state: 'paused' })).status).toBe(200);
    expect((await stack.call(adminToken, 'PATCH', `${base()}/${id}`, { state: 'active' })).status).toBe(200);
    const rotated = await stack.call(adminToken, 'POST', `${base()}/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect((await stack.call(adminToken, 'DELETE', `${base()}/${id}`)).status).toBe(204);

    const log = await stack.call(adminToken, 'GET', `/console/organisations/${acme}/events?limit=20`);
    expect(log.status).toBe(200);
    const mine = log.body.events
      .filter((e: any) => e.details?.endpointId === id)
      .reverse()
      .map((e: any) => [e.type, e.actorKind, e.actorId]);
    expect(mine).toEqual(
      [
        'webhook.endpoint_created',
        'webhook.endpoint_changed',
        'webhook.endpoint_paused',
        'webhook.endpoint_resumed',
        'webhook.secret_rotated',
        'webhook.endpoint_deleted',
      ].map((type) => [type, 'person', admin.id]),
    );
    const changed = log.body.events.find((e: any) => e.type === 'webhook.endpoint_changed');
    expect(changed.details).toMatchObject({
      url: other.url,
      previousUrl: r.url,
      previousEventTypes: 'role.changed',
      eventTypes: 'role.changed member.removed',
    });
    const text = JSON.stringify(log.body);
    for (const secret of [created.body.secret, rotated.body.secret])
      expect(text).not.toContain(secret.slice('whsec_'.length));
    expect(text).not.toContain('whsec_');
    expect(text).not.toContain('receiver-own-token');

    // In the events feed too; an endpoint subscribed to every type is sent none of them.
    const feed = await stack.call(adminToken, 'GET', '/console/events?limit=1000');
    expect(feed.status).toBe(200);
    const feedTypes = feed.body.events
      .filter((e: any) => e.details?.endpointId === id)
      .map((e: any) => e.type);
    expect(feedTypes).toHaveLength(6);
    await round();
    expect(watcher.received).toHaveLength(0);

    // The operator's changes are the operator's events.
    const byOperator = await runCliJson(stack.svc.adminUrl, [
      'webhook:create',
      '--org',
      acme,
      '--url',
      r.url,
    ]);
    expect(byOperator.code, byOperator.stderr).toBe(0);
    const operatorLog = await stack.call(
      adminToken,
      'GET',
      `/console/organisations/${acme}/events?type=webhook.endpoint_created&limit=1`,
    );
    expect(operatorLog.body.events[0]).toMatchObject({
      actorKind: 'operator',
      details: { endpointId: byOperator.json.endpoint.id },
    });
    await clear();
  });

  it('an organisation holds at most WEBHOOK_MAX_ENDPOINTS endpoints, also under 50 parallel saves (each tested first)', async () => {
    const r = await receiver();
    stack.clock.freshWindow(stack.svc.config.console.windowSeconds * 1000);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => stack.call(adminToken, 'POST', base(), { url: r.url })),
    );
    const created = answers.filter((a) => a.status === 201);
    expect(created).toHaveLength(stack.svc.config.webhooks.maxEndpoints);
    for (const a of answers.filter((x) => x.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body.errorCode).toBe('WEBHOOK_LIMIT_REACHED');
    }
    const rows = await db()
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('organisation_id', '=', acme)
      .execute();
    expect(rows).toHaveLength(stack.svc.config.webhooks.maxEndpoints);
    // Every save that was let through its first count was tested; none past the limit was stored.
    expect(r.tests.length).toBeGreaterThanOrEqual(stack.svc.config.webhooks.maxEndpoints);
    expect(r.tests.length).toBeLessThanOrEqual(50);
    await clear();
  });

  it('the operator CLI creates (printing the id and whsec_ secret), lists, rotates and deletes', async () => {
    const r = await receiver();
    const created = await runCliJson(stack.svc.adminUrl, [
      'webhook:create',
      '--org',
      acme,
      '--url',
      r.url,
      '--events',
      'member.removed,role.changed',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json.secret).toMatch(/^whsec_/);
    expect(created.json.endpoint.eventTypes).toEqual(['member.removed', 'role.changed']);
    const id = created.json.endpoint.id;
    const listed = await runCliJson(stack.svc.adminUrl, ['webhook:list', '--org', acme]);
    expect(listed.json.endpoints.map((e: any) => e.id)).toEqual([id]);
    const rotated = await runCliJson(stack.svc.adminUrl, [
      'webhook:rotate-secret',
      '--org',
      acme,
      '--id',
      id,
    ]);
    expect(rotated.json.secret).toMatch(/^whsec_/);
    expect(rotated.json.secret).not.toBe(created.json.secret);
    expect((await runCliJson(stack.svc.adminUrl, ['webhook:delete', '--org', acme, '--id', id])).code).toBe(
      0,
    );
    expect((await runCliJson(stack.svc.adminUrl, ['webhook:delete', '--org', acme, '--id', id])).code).toBe(
      1,
    );
    const refused = await runCliJson(stack.svc.adminUrl, [
      'webhook:create',
      '--org',
      acme,
      '--url',
      'ftp://x',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('WEBHOOK_URL_REFUSED');
  });

  describe('production settings (no private targets, https only)', () => {
    let production: TestUsersService;
    beforeAll(async () => {
      production = await startTestService({
        db: stack.db,
        clock: stack.clock,
        env: { ...stack.svc.envUsed, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_HTTP_HOSTS: '' },
      });
    });
    afterAll(async () => production?.close());

    it('SSRF: a receiver on 127.0.0.1 is refused at save, by address and by a name that resolves to it', async () => {
      for (const [url, reason] of [
        ['https://127.0.0.1:8443/hook', 'private_address'],
        ['https://[::1]/hook', 'private_address'],
        ['https://localhost/hook', 'private_address'],
        ['https://169.254.169.254/latest/meta-data', 'private_address'],
        ['http://hooks.example.com/hook', 'not_https'],
      ]) {
        const res = await http(`${production.adminUrl}/admin/organisations/${acme}/webhooks`, {
          method: 'POST',
          json: { url },
        });
        expect(res.status, url).toBe(400);
        expect(res.body).toMatchObject({ errorCode: 'WEBHOOK_URL_REFUSED', reason });
      }
    });

    it('SSRF: at delivery, a saved name whose DNS answer is 127.0.0.1 is refused at connection time', async () => {
      const r = await receiver();
      const port = new URL(r.url).port;
      // Saved while private targets were allowed (or before the name pointed here): its test request
      // was answered, then the row's URL became a name whose DNS answer is loopback.
      const saved = await stack.call(adminToken, 'POST', base(), { url: r.url });
      expect(saved.status).toBe(201);
      await db()
        .updateTable('webhook_endpoints')
        .set({ url: `https://localhost:${port}/hook` })
        .where('id', '=', saved.body.endpoint.id)
        .execute();
      await event(acme);
      await runWebhookRound(production.app.context, () => undefined);
      expect(r.received).toHaveLength(0);
      const row = await db()
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', saved.body.endpoint.id)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('failed');
      expect(row.last_error).toMatch(/private/);
      await clear();
    });
  });

  it('threat: disabling an endpoint holds its row locked while each org-admin’s language is asked of the identity service, and mails the receiver’s token', async () => {
    const token = adminToken;
    const r = await receiver(() => ({ status: 503 }));
    const created = await stack.call(token, 'POST', base(), { url: `${r.url}?token=secret123` });
    expect(created.status).toBe(201);
    const id = String(created.body.endpoint.id);
    const mailer = stack.svc.mailer as {
      messages: { to: string; subject: string; text: string; html: string }[];
    };
    const mailed = mailer.messages.length;
    await event(acme);
    await round();
    // It has failed for a day and its delivery is due again.
    const dayAgo = new Date(stack.clock.now().getTime() - 24 * HOUR - 60_000);
    await db().updateTable('webhook_endpoints').set({ failing_since: dayAgo }).where('id', '=', id).execute();
    await db()
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: stack.clock.now() })
      .where('endpoint_id', '=', id)
      .execute();

    // The identity service answers the language lookups 2 s late.
    const identityAdmin = stack.svc.app.context.identityAdmin;
    const getIdentity = identityAdmin.getIdentity.bind(identityAdmin);
    let lookupStarted!: () => void;
    const started = new Promise<void>((resolve) => (lookupStarted = resolve));
    let lookupsDoneAt = 0;
    identityAdmin.getIdentity = async (identityId) => {
      lookupStarted();
      await new Promise((resolve) => setTimeout(resolve, 2000));
      lookupsDoneAt = Date.now();
      return getIdentity(identityId);
    };
    try {
      const disabling = round();
      await started;
      const edited = await stack.call(token, 'PATCH', `${base()}/${id}`, { eventTypes: ['role.changed'] });
      const editedAt = Date.now();
      await disabling;
      expect(edited.status).toBe(200);
      expect(lookupsDoneAt).toBeGreaterThan(0);
      expect(editedAt).toBeLessThan(lookupsDoneAt);
    } finally {
      identityAdmin.getIdentity = getIdentity;
    }
    const row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('disabled');
    const notices = mailer.messages.slice(mailed);
    expect(notices.map((m) => m.to)).toEqual([admin.email]);
    expect(`${notices[0]!.text}${notices[0]!.html}`).toContain(new URL(r.url).host);
    expect(JSON.stringify(notices)).not.toContain('secret123');
    await clear();
  });

  // Last: it moves the clock a day on, past the access tokens' lifetime.
  it('an endpoint failing for 24 hours is disabled with a reason, and its org-admins are mailed', async () => {
    const r = await receiver(() => ({ status: 503 }));
    const { endpoint } = (await stack.call(adminToken, 'POST', base(), { url: r.url })).body;
    const mailer = stack.svc.mailer as { messages: { to: string; subject: string }[] };
    const mailed = mailer.messages.length;
    await event(acme);
    await round();
    stack.clock.advance(12 * HOUR);
    await round();
    let row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('active');
    stack.clock.advance(12 * HOUR + 60_000);
    await round();
    row = await db()
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('disabled');
    expect(row.disabled_reason).toMatch(/24 hours/);
    const notices = mailer.messages.slice(mailed);
    expect(notices.map((m) => m.to)).toEqual([admin.email]);
    expect(notices[0]!.subject).toMatch(/webhook endpoint was disabled/);
    // Disabled: nothing more is attempted.
    const attempts = r.received.length;
    await event(acme);
    stack.clock.advance(HOUR);
    await round();
    expect(r.received).toHaveLength(attempts);
    await clear();
  });
});
