import { retentionSchema, settingsFromFiles } from '@acme/service-kit/config';
import { z } from 'zod';
import { migrate, type Database } from '@acme/db';
import { MAIL_NAMESPACE, migrations } from './migrations.ts';
import { startOutboxWorker, type OutboxWorker, type SmtpOptions } from './outbox.ts';

/** Applies the outbox migrations (idempotent; every service that sends mail may call it). */
export function migrateMail(db: Database): Promise<void> {
  return migrate(db, MAIL_NAMESPACE, migrations);
}

/** `smtp://[user:pass@]host:port` (plain, STARTTLS when offered) or `smtps://…` (TLS from the start). */
export function parseSmtpUrl(value: string): SmtpOptions {
  const url = new URL(value);
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new TypeError('SMTP URL must be smtp:// or smtps://');
  const secure = url.protocol === 'smtps:';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new TypeError('SMTP URL needs a host');
  return {
    host,
    port: url.port ? Number(url.port) : secure ? 465 : 25,
    secure,
    ...(url.username
      ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
      : {}),
  };
}

export const DEFAULT_SMTP_URL = 'smtp://127.0.0.1:2525';
export const DEFAULT_MAIL_FROM = '"Acme Research" <no-reply@acme.localhost>';

/** Mail settings a service may embed in its own config schema: `SMTP_URL`, `MAIL_FROM`. */
export const mailEnvSchema = z.object({
  SMTP_URL: z
    .string()
    .default(DEFAULT_SMTP_URL)
    .refine((v) => {
      try {
        parseSmtpUrl(v);
        return true;
      } catch {
        return false;
      }
    }, 'SMTP_URL must be smtp://host:port or smtps://user:pass@host:port')
    .describe(
      'Where the outbox worker sends mail: `smtp://[user:pass@]host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start).',
    )
    .meta({ secret: true }),
  MAIL_FROM: z.string().min(3).default(DEFAULT_MAIL_FROM).describe('The From header of every mail sent.'),
});

/** The mail settings of a service's own process: the sender's, and whether it runs the outbox worker. */
export const mailWorkerEnvSchema = mailEnvSchema.extend({
  MAIL_WORKER: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .describe(
      "false: this process does not deliver the outbox's mail (another process does); several workers on one database are safe.",
    ),
  MAIL_SENT_RETENTION_DAYS: retentionSchema(
    7,
    365,
    "Days a delivered mail's bookkeeping row (recipient, subject, when; its body is cleared at delivery) stays in the outbox before the worker deletes it.",
  ),
});

export interface MailConfig {
  smtp: SmtpOptions;
  from: string;
}

export function loadMailConfig(env: Record<string, string | undefined> = process.env): MailConfig {
  const parsed = mailEnvSchema.parse({
    SMTP_URL: env.SMTP_URL || undefined,
    MAIL_FROM: env.MAIL_FROM || undefined,
  });
  return { smtp: parseSmtpUrl(parsed.SMTP_URL), from: parsed.MAIL_FROM };
}

/**
 * The outbox worker of a service's own process (its entry point), configured by `SMTP_URL` and
 * `MAIL_FROM`; `MAIL_WORKER=false` leaves delivery to another process. Several workers on one
 * database are safe: each round claims its messages with `FOR UPDATE SKIP LOCKED`.
 */
export function startOutboxWorkerFromEnv(
  db: Database,
  env: Record<string, string | undefined> = process.env,
): OutboxWorker | undefined {
  const set = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const { MAIL_WORKER, MAIL_SENT_RETENTION_DAYS } = mailWorkerEnvSchema.parse(set);
  if (MAIL_WORKER === 'false' || MAIL_WORKER === '0') return undefined;
  // SMTP_URL carries the relay's password: SMTP_URL_FILE reads it from a mounted file.
  const mail = loadMailConfig(settingsFromFiles(env, ['SMTP_URL']));
  const retainSentMs = MAIL_SENT_RETENTION_DAYS * 86_400_000;
  return startOutboxWorker({ db, smtp: mail.smtp, from: mail.from, retainSentMs });
}
