import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStandIns, type CaughtMessage, type StandIns } from '@acme/dev';
import { createTestDb, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { freePort } from '@acme/test-kit/free-port';
import { createMailer, startOutboxWorker } from '../src/outbox.ts';
import { migrateMail, parseSmtpUrl } from '../src/config.ts';
import { renderInvitation } from '../src/templates.ts';

// The whole path: outbox → nodemailer → the dev SMTP catcher → its JSON API.
describe('delivery to the development mailbox', () => {
  let db: Database;
  let standIns: StandIns | undefined;
  const clock = new FakeClock(new Date('2026-11-22T08:00:00Z'));

  beforeAll(async () => {
    db = await createTestDb();
    await migrateMail(db);
  });
  afterAll(async () => {
    await standIns?.close();
    await db.close();
  });

  it('delivers a message queued before the mailbox was up, once', async () => {
    const smtpPort = await freePort();
    const worker = startOutboxWorker({
      db,
      clock,
      smtp: parseSmtpUrl(`smtp://127.0.0.1:${smtpPort}`),
      from: '"Acme Research" <no-reply@acme.localhost>',
      pollMs: 60_000,
      logger: false,
    });
    try {
      const mail = renderInvitation({
        link: 'http://localhost:4000/account/onboarding?flow=f-1&code=246810',
        inviterOrg: 'Quant & Co',
        firstName: 'Ada',
        appName: 'Platform',
        expiresAt: new Date('2026-12-06T08:00:00Z'),
      });
      await createMailer({ db, clock }).enqueue({ to: 'ada@example.com', ...mail });
      await worker.drain(); // SMTP is down: kept for later

      standIns = await startStandIns({ httpPort: 0, smtpPort });
      clock.advance(1_000);
      await worker.drain();
      await worker.drain();

      const res = await fetch(`${standIns.urls.mailApi}?to=ada@example.com`);
      const messages = (await res.json()) as CaughtMessage[];
      expect(messages).toHaveLength(1);
      const [m] = messages;
      expect(m?.subject).toBe('Quant & Co invited you to Platform');
      expect(m?.from).toBe('Acme Research <no-reply@acme.localhost>');
      expect(m?.to).toBe('ada@example.com');
      expect(m?.text).toContain('http://localhost:4000/account/onboarding?flow=f-1&code=246810');
      expect(m?.html).toContain('href="http://localhost:4000/account/onboarding?flow=f-1&amp;code=246810"');
    } finally {
      await worker.stop();
    }
  });
});
