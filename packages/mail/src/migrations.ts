import type { Migration } from '@acme/db';

/** Migration namespace of this package. */
export const MAIL_NAMESPACE = 'mail';

/**
 * The outbox. One statement per migration (PGlite's extended protocol takes one at a time).
 * It holds the message as it will be sent and delivery bookkeeping, nothing more secret; the
 * body is emptied once the message is delivered.
 * `lease_id` marks the claim of the worker currently sending a message.
 */
export const migrations: Migration[] = [
  {
    name: '001_mail_outbox',
    sql: `create table mail_outbox (
      id uuid primary key,
      "to" text not null,
      subject text not null,
      text text not null,
      html text not null,
      created_at timestamptz not null,
      attempts integer not null default 0,
      next_attempt_at timestamptz not null,
      sent_at timestamptz,
      last_error text,
      lease_id uuid
    )`,
  },
  {
    name: '002_mail_outbox_due_index',
    sql: 'create index mail_outbox_due on mail_outbox (next_attempt_at) where sent_at is null',
  },
  {
    name: '003_mail_outbox_sent_index',
    sql: 'create index mail_outbox_sent on mail_outbox (sent_at) where sent_at is not null',
  },
];
