import { typed } from '@acme/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorOrigin, recordEvent } from '../../src/events/events.ts';
import type { UsersDb } from '../../src/db-types.ts';
import { startWebhookWorker } from '../../src/webhooks/worker.ts';
import { http, startTestService, type TestUsersService } from '../harness.ts';
import { AdvancingClock } from '../console/console-harness.ts';
import { startReceiver, verified, type Receiver } from './receiver.ts';

const ENV = { WEBHOOK_HTTP_HOSTS: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '50' };
const EVENTS = 30;

/** Two instances on one database, each running its webhook worker: every event is delivered once. */
describe('two user-service instances on one database', () => {
  let a: TestUsersService;
  let b: TestUsersService;
  let receiver: Receiver;
  const workers: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    // Real time: the receiver's library checks the signature's timestamp against its own clock.
    a = await startTestService({ env: ENV, clock: new AdvancingClock() });
    b = await startTestService({ env: ENV, db: a.db, clock: a.clock });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await receiver?.close();
    await b?.close();
    await a?.close();
  });

  it('deliver each event once: a delivery claimed by one instance is never sent by the other', async () => {
    const org = await http(`${a.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Two Instances', domains: ['two-instances.test'], products: ['Platform'] },
    });
    expect(org.status).toBe(201);
    const organisationId = (org.body as { id: string }).id;
    const hook = await http(`${b.adminUrl}/admin/organisations/${organisationId}/webhooks`, {
      method: 'POST',
      json: { url: receiver.url },
    });
    expect(hook.status).toBe(201);
    const { secret } = hook.body as { secret: string };
    // The identity service is not running here: the relay's failures are expected and ignored.
    for (const svc of [a, b]) workers.push(startWebhookWorker(svc.app.context, () => undefined));
    await Promise.all(
      Array.from({ length: EVENTS }, (_, i) =>
        recordEvent(
          typed<UsersDb>(i % 2 === 0 ? a.db : b.db),
          operatorOrigin(),
          { organisationId, type: 'member.deleted', subjectId: null, details: { n: String(i) } },
          a.clock.now(),
        ),
      ),
    );
    const deadline = Date.now() + 60_000;
    while (receiver.received.length < EVENTS && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    // A few more rounds of both workers: nothing is sent again.
    await new Promise((r) => setTimeout(r, 500));
    const ids = receiver.received.map((q) => String(q.headers['webhook-id']));
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids).size).toBe(EVENTS);
    for (const q of receiver.received) expect(verified(secret, q).type).toBe('member.removed');
  }, 90_000);
});
