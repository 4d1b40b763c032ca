export {
  createMailer,
  createMemoryMailer,
  startOutboxWorker,
  retryDelayMs,
  mailMessageSchema,
  RETRY_BASE_MS,
  RETRY_CAP_MS,
  type Executor,
  type MailLogger,
  type MailMessage,
  type Mailer,
  type MailerOptions,
  type MailSchema,
  type OutboxWorker,
  type OutboxWorkerOptions,
  type SmtpOptions,
} from './outbox.ts';
export { migrations, MAIL_NAMESPACE } from './migrations.ts';
export {
  escapeHtml,
  formatExpiry,
  renderInvitation,
  renderRecoveryCode,
  renderVerificationCode,
  type CodeMailInput,
  type InvitationMailInput,
  type RenderedMail,
} from './templates.ts';
export {
  DEFAULT_MAIL_FROM,
  DEFAULT_SMTP_URL,
  loadMailConfig,
  mailEnvSchema,
  migrateMail,
  parseSmtpUrl,
  type MailConfig,
} from './config.ts';
