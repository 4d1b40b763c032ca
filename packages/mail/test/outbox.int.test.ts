import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { createTestDb, sql, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { freePort } from '@acme/test-kit/free-port';
import { createMailer, startOutboxWorker, type MailLogger, type OutboxWorker } from '../src/outbox.ts';
import { migrateMail, startOutboxWorkerFromEnv } from '../src/config.ts';
import { renderRecoveryCode } from '../src/templates.ts';

interface Received {
  rcpt: string[];
  raw: string;
}

async function startSmtp(port: number): Promise<{ received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disableReverseLookup: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          rcpt: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function captureLogger(): MailLogger & { lines: string[] } {
  const lines: string[] = [];
  const push = (obj: object, msg?: string) => lines.push(JSON.stringify({ ...obj, msg }));
  return { lines, info: push, warn: push, error: push };
}

function messageIdOf(raw: string): string | undefined {
  return /^Message-ID:\s*<([^@>]+)@/im.exec(raw)?.[1];
}

interface OutboxRow {
  id: string;
  to: string;
  attempts: number;
  next_attempt_at: Date;
  sent_at: Date | null;
  last_error: string | null;
}

describe('mail outbox', async () => {
  let db: Database;
  const clock = new FakeClock(new Date('2026-11-22T08:00:00Z'));
  const workers: OutboxWorker[] = [];

  function worker(port: number, logger: MailLogger | false = false): OutboxWorker {
    const w = startOutboxWorker({
      db,
      clock,
      smtp: { host: '127.0.0.1', port },
      from: '"Acme" <no-reply@acme.test>',
      pollMs: 60_000,
      logger,
    });
    workers.push(w);
    return w;
  }

  async function rows(): Promise<OutboxRow[]> {
    const r = await sql<OutboxRow>`select id, "to", attempts, next_attempt_at, sent_at, last_error
      from mail_outbox order by created_at, id`.execute(db.kysely);
    return r.rows;
  }

  beforeAll(async () => {
    db = await createTestDb();
    await migrateMail(db);
    await migrateMail(db);
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    await sql`delete from mail_outbox`.execute(db.kysely);
  });

  it('keeps mail queued while SMTP is down and sends it once SMTP is back', async () => {
    const port = await freePort();
    const logger = captureLogger();
    const w = worker(port, logger);
    const mailer = createMailer({ db, clock });
    const mail = renderRecoveryCode({ code: '918273', appName: 'Platform' });
    await mailer.enqueue({ to: 'ada@example.com', ...mail });

    await w.drain();
    let [row] = await rows();
    expect(row?.sent_at).toBeNull();
    expect(row?.attempts).toBe(1);
    expect(row?.last_error).toBeTruthy();
    expect(row?.next_attempt_at.getTime()).toBe(clock.now().getTime() + 1_000);

    // Still down at the next attempt: the wait doubles.
    clock.advance(1_000);
    await w.drain();
    [row] = await rows();
    expect(row?.attempts).toBe(2);
    expect(row?.next_attempt_at.getTime()).toBe(clock.now().getTime() + 2_000);
    // Warnings carry no body, code, subject or recipient.
    expect(logger.lines.length).toBeGreaterThanOrEqual(2);
    for (const line of logger.lines) {
      expect(line).not.toContain('918273');
      expect(line).not.toContain('ada@example.com');
      expect(line).not.toContain('recovery');
    }

    const smtp = await startSmtp(port);
    try {
      // Not due yet: nothing happens before the backoff has passed.
      await w.drain();
      expect(smtp.received).toHaveLength(0);
      clock.advance(2_000);
      await w.drain();
      expect(smtp.received).toHaveLength(1);
      expect(smtp.received[0]?.rcpt).toEqual(['ada@example.com']);
      expect(smtp.received[0]?.raw).toContain('918273');
      expect(messageIdOf(smtp.received[0]?.raw ?? '')).toBe(row?.id);
      [row] = await rows();
      expect(row?.sent_at?.getTime()).toBe(clock.now().getTime());
      expect(row?.attempts).toBe(3);
      expect(row?.last_error).toBeNull();

      // Sent once: later rounds do not send it again.
      clock.advance(3_600_000);
      await w.drain();
      expect(smtp.received).toHaveLength(1);
    } finally {
      await smtp.close();
    }
  });

  it('keeps retrying at the 5 minute cap and flags stuck messages', async () => {
    const port = await freePort();
    const logger = captureLogger();
    const w = worker(port, logger);
    await createMailer({ db, clock }).enqueue({
      to: 'b@example.com',
      subject: 'S',
      text: 'secret 4242',
      html: '',
    });
    for (let i = 0; i < 14; i++) {
      await w.drain();
      const [row] = await rows();
      expect(row?.sent_at).toBeNull();
      clock.set(row!.next_attempt_at);
    }
    const [row] = await rows();
    expect(row?.attempts).toBe(14);
    await w.drain();
    const [after] = await rows();
    expect(after!.next_attempt_at.getTime() - clock.now().getTime()).toBe(300_000);
    expect(logger.lines.some((l) => l.includes('"stuck":true'))).toBe(true);
    expect(logger.lines.join('\n')).not.toContain('4242');
  });

  it('two workers on one database do not send a message twice', async () => {
    const port = await freePort();
    const smtp = await startSmtp(port);
    try {
      const mailer = createMailer({ db, clock });
      const count = 20;
      for (let i = 0; i < count; i++) {
        await mailer.enqueue({
          to: `user${i}@example.com`,
          subject: `Message ${i}`,
          text: `t${i}`,
          html: '',
        });
      }
      const a = worker(port);
      const b = worker(port);
      await Promise.all([a.drain(), b.drain(), a.drain(), b.drain()]);
      expect(smtp.received).toHaveLength(count);
      const ids = smtp.received.map((m) => messageIdOf(m.raw));
      expect(new Set(ids).size).toBe(count);
      const all = await rows();
      expect(all.every((r) => r.sent_at !== null && r.attempts === 1)).toBe(true);
    } finally {
      await smtp.close();
    }
  });

  it('retries a message whose worker died mid-send once the claim has expired', async () => {
    const port = await freePort();
    const smtp = await startSmtp(port);
    try {
      await createMailer({ db, clock }).enqueue({
        to: 'crash@example.com',
        subject: 'C',
        text: 'c',
        html: '',
      });
      // What a worker leaves behind when it is killed after claiming: a lease five minutes long.
      await sql`update mail_outbox set attempts = 1, lease_id = ${'00000000-0000-4000-8000-000000000001'},
        next_attempt_at = ${new Date(clock.now().getTime() + 5 * 60_000)}`.execute(db.kysely);
      const w = worker(port);
      await w.drain();
      expect(smtp.received).toHaveLength(0);
      clock.advance(5 * 60_000);
      await w.drain();
      expect(smtp.received).toHaveLength(1);
      const [row] = await rows();
      expect(row?.attempts).toBe(2);
      expect(row?.sent_at).not.toBeNull();
    } finally {
      await smtp.close();
    }
  });

  it('delivers on its own by polling, and on wake', async () => {
    const port = await freePort();
    const smtp = await startSmtp(port);
    try {
      const w = startOutboxWorker({
        db,
        smtp: { host: '127.0.0.1', port },
        from: 'no-reply@acme.test',
        pollMs: 50,
        logger: false,
      });
      workers.push(w);
      const mailer = createMailer({ db, onEnqueued: () => w.wake() });
      await mailer.enqueue({
        to: 'poll@example.com',
        subject: 'Polled',
        text: 'hello',
        html: '<p>hello</p>',
      });
      await vi.waitFor(() => expect(smtp.received).toHaveLength(1), { timeout: 20_000, interval: 50 });
      await w.stop();
    } finally {
      await smtp.close();
    }
  });

  it('enqueues inside the caller transaction: rolled back means never sent', async () => {
    const mailer = createMailer({ db, clock });
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await mailer.enqueue({ to: 'rb@example.com', subject: 'No', text: '', html: '' }, trx);
        throw new Error('caller failed');
      }),
    ).rejects.toThrow('caller failed');
    expect(await rows()).toHaveLength(0);
    await db.kysely.transaction().execute(async (trx) => {
      await mailer.enqueue({ to: 'ok@example.com', subject: 'Yes', text: '', html: '' }, trx);
    });
    expect((await rows()).map((r) => r.to)).toEqual(['ok@example.com']);
  });

  it('refuses invalid messages without writing anything', async () => {
    const mailer = createMailer({ db, clock });
    await expect(
      mailer.enqueue({ to: 'x@y.z\r\nBcc: a@b.c', subject: 's', text: '', html: '' }),
    ).rejects.toThrow();
    await expect(mailer.enqueue({ to: 'x@y.z', subject: '', text: '', html: '' })).rejects.toThrow();
    expect(await rows()).toHaveLength(0);
  });

  it('a delivered mail leaves no code or link in clear text in mail_outbox', async () => {
    const port = await freePort();
    const smtp = await startSmtp(port);
    try {
      const pending = {
        to: 'kept@example.com',
        subject: 'Pending',
        text: 'code 551122 https://app.test/account/onboarding?flow=f1',
        html: '<p>551122</p>',
      };
      await createMailer({ db, clock }).enqueue({
        to: 'done@example.com',
        subject: 'Your code',
        text: 'code 662233 https://app.test/account/onboarding?flow=f2',
        html: '<a href="https://app.test/account/onboarding?flow=f2">662233</a>',
      });
      await worker(port).drain();
      expect(smtp.received[0]?.raw).toContain('662233');
      await createMailer({ db, clock }).enqueue(pending);
      const stored = await sql<{
        to: string;
        subject: string;
        text: string;
        html: string;
        sent_at: Date | null;
      }>`
        select "to", subject, text, html, sent_at from mail_outbox order by created_at, id`.execute(
        db.kysely,
      );
      const delivered = stored.rows.find((r) => r.to === 'done@example.com')!;
      expect(delivered.sent_at).not.toBeNull();
      expect(delivered.subject).toBe('Your code');
      expect(`${delivered.text}${delivered.html}`).not.toMatch(/662233|onboarding|flow=/);
      // Mail still waiting to go out keeps its body, or it could not be sent.
      const waiting = stored.rows.find((r) => r.to === 'kept@example.com')!;
      expect(waiting).toMatchObject({ text: pending.text, html: pending.html, sent_at: null });
    } finally {
      await smtp.close();
    }
  });

  it('deletes a delivered mail MAIL_SENT_RETENTION_DAYS after delivery and keeps younger and unsent ones', async () => {
    const day = 86_400_000;
    const w = startOutboxWorker({
      db,
      clock,
      smtp: { host: '127.0.0.1', port: 1 },
      from: '"Acme" <no-reply@acme.test>',
      pollMs: 60_000,
      logger: false,
      retainSentMs: 2 * day,
    });
    workers.push(w);
    const insert = (to: string, sentAt: Date | null) =>
      sql`insert into mail_outbox (id, "to", subject, text, html, created_at, next_attempt_at, sent_at)
        values (${crypto.randomUUID()}, ${to}, 's', '', '', ${clock.now()}, ${new Date(clock.now().getTime() + day)}, ${sentAt})`.execute(
        db.kysely,
      );
    // The purge runs at most every ten minutes: let the worker's first round (and its purge) finish,
    // then move past it. (A first round still under way purged before the rows below were in, and
    // the next round's purge then waited its ten minutes: CI saw the old row kept.)
    await w.drain();
    clock.advance(11 * 60_000);
    await insert('old@acme.test', new Date(clock.now().getTime() - 2 * day - 60_000));
    await insert('young@acme.test', new Date(clock.now().getTime() - 2 * day + 60_000));
    await insert('unsent@acme.test', null);
    await w.drain();
    // Nothing is due (the unsent one waits a day), so no SMTP server is needed.
    expect((await rows()).map((r) => r.to).sort()).toEqual(['unsent@acme.test', 'young@acme.test']);
  });

  it.each(['0', '-1', 'a week', '1.5'])(
    'refuses to start the worker with MAIL_SENT_RETENTION_DAYS=%s, naming the setting',
    (value) => {
      expect(() => startOutboxWorkerFromEnv(db, { MAIL_SENT_RETENTION_DAYS: value })).toThrow(
        'MAIL_SENT_RETENTION_DAYS',
      );
    },
  );
});
