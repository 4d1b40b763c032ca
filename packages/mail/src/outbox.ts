import { randomUUID } from 'node:crypto';
import type { Transporter } from 'nodemailer';
import { z } from 'zod';
import { sql, typed, type Database } from '@acme/db';
import { deleteInBatches } from '@acme/db/batched-delete';
import { systemClock, type Clock } from '@acme/db/clock';
import type { Generated, Kysely } from 'kysely';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** A handle queries can run on: the database's Kysely instance or a transaction of it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Executor = Kysely<any>;

export interface Mailer {
  /**
   * Puts a message in the outbox. Pass the caller's transaction to make the message part of
   * the caller's own writes (it is then sent only if that transaction commits).
   */
  enqueue(message: MailMessage, trx?: Executor): Promise<void>;
}

/** pino-compatible subset. */
export interface MailLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

interface MailOutboxTable {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  created_at: Date;
  attempts: Generated<number>;
  next_attempt_at: Date;
  sent_at: Date | null;
  last_error: string | null;
  lease_id: string | null;
}

export interface MailSchema {
  mail_outbox: MailOutboxTable;
}

// One recipient, no display name, nothing that could smuggle a second address or a header.
const address = z
  .string()
  .trim()
  .min(3)
  .max(320)
  .regex(/^[^\s@<>,;:"()[\]\\]+@[^\s@<>,;:"()[\]\\]+$/, 'a single plain email address');

export const mailMessageSchema = z.object({
  to: address,
  subject: z
    .string()
    .min(1)
    .max(998)
    .regex(/^[^\r\n]*$/, 'one line'),
  text: z.string().max(100_000),
  html: z.string().max(500_000),
});

export interface MailerOptions {
  db: Database;
  clock?: Clock;
  /** Called after a message was queued (e.g. `worker.wake`), so delivery need not wait for the next poll. */
  onEnqueued?: () => void;
}

export function createMailer(options: MailerOptions): Mailer {
  const clock = options.clock ?? systemClock;
  const db = typed<MailSchema>(options.db);
  return {
    async enqueue(message, trx) {
      const parsed = mailMessageSchema.parse(message);
      const now = clock.now();
      const executor = (trx as Kysely<MailSchema> | undefined) ?? db;
      await executor
        .insertInto('mail_outbox')
        .values({
          id: randomUUID(),
          to: parsed.to,
          subject: parsed.subject,
          text: parsed.text,
          html: parsed.html,
          created_at: now,
          next_attempt_at: now,
        })
        .execute();
      options.onEnqueued?.();
    },
  };
}

/** A mailer that keeps messages in memory, for services' unit tests. */
export function createMemoryMailer(): Mailer & { messages: MailMessage[] } {
  const messages: MailMessage[] = [];
  return {
    messages,
    async enqueue(message) {
      messages.push(mailMessageSchema.parse(message));
    },
  };
}

export interface SmtpOptions {
  host: string;
  port: number;
  secure?: boolean;
  user?: string | undefined;
  pass?: string | undefined;
}

export interface OutboxWorkerOptions {
  db: Database;
  smtp: SmtpOptions;
  /** RFC 5322 sender, e.g. `"Acme" <no-reply@acme.test>`. */
  from: string;
  clock?: Clock;
  /** Poll interval; 1 s by default. */
  pollMs?: number;
  /** `false` silences it; by default warnings go to the console. */
  logger?: MailLogger | false;
  /** How long a claim holds a message before another worker may take it over (5 min). */
  leaseMs?: number;
  /** Messages claimed per round trip (10). */
  batchSize?: number;
  /** Sent messages' rows are deleted this long after delivery (`MAIL_SENT_RETENTION_DAYS`; 7 days). */
  retainSentMs?: number;
  /** From this many failed attempts on, failures are logged as stuck (10). */
  warnAfterAttempts?: number;
}

export interface OutboxWorker {
  /** Stops polling, waits for the message in flight, closes the SMTP transport. */
  stop(): Promise<void>;
  /** Sends everything due now (including retries whose time has come) and resolves when done. */
  drain(): Promise<void>;
  /** Asks for a round now instead of at the next poll. */
  wake(): void;
  /** Failed delivery attempts since this worker started (for the `mail_outbox_failures_total` metric). */
  readonly failures: number;
}

/** What waits in the outbox: unsent messages and the age of the oldest (for the metrics). */
export async function outboxBacklog(
  db: Database,
  clock: Clock = systemClock,
): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const { rows } = await sql<{ depth: number; oldest: Date | string | null }>`
    select count(*)::int as depth, min(created_at) as oldest from mail_outbox where sent_at is null`.execute(
    db.kysely,
  );
  const row = rows[0];
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : undefined;
  return {
    depth: Number(row?.depth ?? 0),
    oldestAgeSeconds: oldest === undefined ? 0 : Math.max(0, (clock.now().getTime() - oldest) / 1000),
  };
}

/** Delivered rows deleted per statement: a week's backlog never becomes one long delete. */
const PURGE_BATCH = 1000;

export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 5 * 60_000;

/** Delay before the next attempt after `attempts` failed ones: 1 s doubling to 5 min, then 5 min forever. */
export function retryDelayMs(attempts: number): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30));
  return Math.min(RETRY_BASE_MS * 2 ** exponent, RETRY_CAP_MS);
}

interface ClaimedRow {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attempts: number;
}

const consoleLogger: MailLogger = {
  info: () => {},
  warn: (obj, msg) => console.warn(JSON.stringify({ level: 'warn', msg, ...obj })),
  error: (obj, msg) => console.error(JSON.stringify({ level: 'error', msg, ...obj })),
};

const silentLogger: MailLogger = { info: () => {}, warn: () => {}, error: () => {} };

function describeError(err: unknown): { text: string; code?: string } {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return {
      text: err.message.slice(0, 500),
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { text: String(err).slice(0, 500) };
}

function messageIdDomain(from: string): string {
  const match = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'localhost';
}

/**
 * Delivers the outbox over SMTP. A round claims due messages with `FOR UPDATE SKIP LOCKED`,
 * stamping each with a lease (a fresh `lease_id`, `next_attempt_at` pushed past the send), so
 * no other worker takes them; the SMTP conversation happens outside any transaction (PGlite is
 * one connection and must not be held during network I/O); the result is written only while
 * the lease still stands. Failures retry with exponential backoff, capped, forever.
 */
export function startOutboxWorker(options: OutboxWorkerOptions): OutboxWorker {
  const clock = options.clock ?? systemClock;
  const pollMs = options.pollMs ?? 1_000;
  const leaseMs = options.leaseMs ?? 5 * 60_000;
  const batchSize = options.batchSize ?? 10;
  const retainSentMs = options.retainSentMs ?? 7 * 24 * 3_600_000;
  const warnAfter = options.warnAfterAttempts ?? 10;
  const logger = options.logger === false ? silentLogger : (options.logger ?? consoleLogger);
  const domain = messageIdDomain(options.from);
  const db = options.db.kysely;

  // nodemailer is loaded with the first message to send: about 13 MB of resident memory that a
  // process which sends no mail (most instances, most of the time) does not need.
  let transport: Promise<Transporter> | undefined;
  const transportOf = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        host: options.smtp.host,
        port: options.smtp.port,
        secure: options.smtp.secure ?? false,
        ...(options.smtp.user ? { auth: { user: options.smtp.user, pass: options.smtp.pass ?? '' } } : {}),
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
        logger: false,
        debug: false,
      }),
    ));

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let lastPurge = 0;
  let failures = 0;

  async function claim(): Promise<{ leaseId: string; rows: ClaimedRow[] }> {
    const now = clock.now();
    const leaseId = randomUUID();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const result = await sql<ClaimedRow>`
      with due as (
        select id from mail_outbox
        where sent_at is null and next_attempt_at <= ${now}
        order by next_attempt_at, created_at
        limit ${batchSize}
        for update skip locked
      )
      update mail_outbox m
      set attempts = m.attempts + 1, next_attempt_at = ${leaseUntil}, lease_id = ${leaseId}
      from due where m.id = due.id
      returning m.id, m."to", m.subject, m.text, m.html, m.attempts`.execute(db);
    return { leaseId, rows: result.rows };
  }

  async function deliver(row: ClaimedRow, leaseId: string): Promise<void> {
    try {
      await (
        await transportOf()
      ).sendMail({
        from: options.from,
        to: row.to,
        subject: row.subject,
        text: row.text,
        html: row.html,
        messageId: `<${row.id}@${domain}>`,
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    } catch (err) {
      failures++;
      const error = describeError(err);
      const delay = retryDelayMs(row.attempts);
      const nextAttemptAt = new Date(clock.now().getTime() + delay);
      await sql`update mail_outbox set next_attempt_at = ${nextAttemptAt}, last_error = ${error.text}, lease_id = null
        where id = ${row.id} and lease_id = ${leaseId}`.execute(db);
      // Never the body, subject or recipient: only what identifies the message and the failure.
      logger.warn(
        {
          mailId: row.id,
          attempts: row.attempts,
          nextAttemptAt: nextAttemptAt.toISOString(),
          error: error.code ?? error.text.slice(0, 200),
          ...(row.attempts >= warnAfter ? { stuck: true } : {}),
        },
        row.attempts >= warnAfter
          ? 'mail delivery still failing, retrying at the maximum interval'
          : 'mail delivery failed, will retry',
      );
      return;
    }
    const result =
      // Once delivered, the body (which carries codes and sign-in links) is no longer needed: keep
      // only the bookkeeping, so a database dump or backup holds no usable secret.
      await sql`update mail_outbox set sent_at = ${clock.now()}, last_error = null, lease_id = null,
        text = '', html = ''
      where id = ${row.id} and lease_id = ${leaseId}`.execute(db);
    if (Number(result.numAffectedRows ?? 0n) === 0) {
      logger.warn({ mailId: row.id }, 'mail sent after its claim had expired; it may have been sent twice');
    } else {
      logger.info({ mailId: row.id, attempts: row.attempts }, 'mail sent');
    }
  }

  async function purge(): Promise<void> {
    const now = clock.now().getTime();
    if (now - lastPurge < 10 * 60_000) return;
    lastPurge = now;
    const before = new Date(now - retainSentMs);
    await deleteInBatches(db, {
      table: 'mail_outbox',
      where: sql`sent_at is not null and sent_at < ${before}`,
      batchSize: PURGE_BATCH,
    });
  }

  async function round(): Promise<void> {
    for (;;) {
      const { leaseId, rows } = await claim();
      if (rows.length === 0) break;
      for (const row of rows) await deliver(row, leaseId);
    }
    await purge();
  }

  function schedule(): Promise<void> {
    const next = chain.then(round);
    chain = next.catch(() => {});
    return next;
  }

  function poll(): void {
    timer = undefined;
    if (stopped) return;
    schedule()
      .catch((err: unknown) => logger.error({ error: describeError(err).text }, 'mail outbox round failed'))
      .finally(() => {
        if (!stopped) {
          timer = setTimeout(poll, pollMs);
          timer.unref();
        }
      });
  }

  poll();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await chain;
      await transport?.then(
        (t) => t.close(),
        () => undefined,
      );
    },
    drain() {
      return schedule();
    },
    wake() {
      if (stopped || !timer) return;
      clearTimeout(timer);
      poll();
    },
    get failures() {
      return failures;
    },
  };
}
