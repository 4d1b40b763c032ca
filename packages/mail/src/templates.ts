import { isLocale, type Locale } from '@acme/i18n';
import { createCatalogue, type MessageValues } from '@acme/i18n/catalogue';
import type { MailMessage } from './outbox.ts';
import { de } from './locales/de.ts';
import { en } from './locales/en.ts';

export type RenderedMail = Omit<MailMessage, 'to'>;

/** Every mail text, per locale. */
const catalogue = createCatalogue(en, { de });
type MailKey = keyof typeof en;

/** What every template takes besides its own fields: the recipient's locale (English when absent). */
export interface MailLocale {
  locale?: Locale;
}

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Subjects are one header line: no line breaks, no control characters. */
function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

/**
 * One locale's texts: plain (`t`) for subjects and the text part, escaped (`h`) for the HTML part.
 * A value that is not a shipped locale (a stored trait from elsewhere) means English: it never
 * reaches the mail, not even its `lang` attribute.
 */
function texts(requested: unknown) {
  const locale: Locale = isLocale(requested) ? requested : 'en';
  const t = (key: MailKey, values?: MessageValues) => catalogue.t(locale, key, values);
  return { locale, t, h: (key: MailKey, values?: MessageValues) => escapeHtml(t(key, values)) };
}
type Texts = ReturnType<typeof texts>;

function layout(tx: Texts, appName: string, bodyHtml: string): string {
  const app = escapeHtml(appName);
  return `<!doctype html>
<html lang="${escapeHtml(tx.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${app}</title>
</head>
<body style="margin:0;padding:0;background:#f4f5f7;font-family:Arial,Helvetica,sans-serif;color:#1f2328;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;padding:24px 0;">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border-radius:8px;padding:32px;">
<tr><td style="font-size:20px;font-weight:bold;padding-bottom:16px;">${app}</td></tr>
<tr><td style="font-size:15px;line-height:1.5;">
${bodyHtml}
</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
}

function codeBlock(code: string): string {
  return `<p style="font-size:28px;font-weight:bold;letter-spacing:6px;font-family:'Courier New',monospace;margin:24px 0;">${escapeHtml(code)}</p>`;
}

export interface CodeMailInput extends MailLocale {
  code: string;
  appName: string;
}

/** A mail that hands over a one-time code: greeting, lead line, the code, a reassurance, the signature. */
function codeMail(
  tx: Texts,
  app: string,
  keys: { subject: MailKey; lead: MailKey; ignore: MailKey },
  code: string,
): RenderedMail {
  const lead = tx.t(keys.lead, { app });
  const ignore = tx.t(keys.ignore);
  const signature = tx.t('signature', { app });
  const text = [tx.t('hello'), '', lead, '', code, '', ignore, '', signature, ''].join('\n');
  const html = layout(
    tx,
    app,
    `<p>${tx.h('hello')}</p>
<p>${escapeHtml(lead)}</p>
${codeBlock(code)}
<p>${escapeHtml(ignore)}</p>
<p>${escapeHtml(signature)}</p>`,
  );
  return { subject: tx.t(keys.subject, { app }), text, html };
}

export function renderRecoveryCode({ code, appName, locale }: CodeMailInput): RenderedMail {
  const keys = { subject: 'recoverySubject', lead: 'recoveryLead', ignore: 'recoveryIgnore' } as const;
  return codeMail(texts(locale), oneLine(appName), keys, code);
}

export function renderVerificationCode({ code, appName, locale }: CodeMailInput): RenderedMail {
  const keys = {
    subject: 'verificationSubject',
    lead: 'verificationLead',
    ignore: 'verificationIgnore',
  } as const;
  return codeMail(texts(locale), oneLine(appName), keys, code);
}

export interface InvitationMailInput extends MailLocale {
  /** The onboarding link (absolute http or https URL). */
  link: string;
  /** Name of the inviting organisation. */
  inviterOrg: string;
  firstName: string;
  appName: string;
  expiresAt: Date | string;
}

/** Dates in mails: day, month in words, year and time, in UTC (the reader's zone is not known). */
const DATE_LOCALES: Record<Locale, string> = { en: 'en-GB', de: 'de-DE' };
const dateFormats = new Map<Locale, Intl.DateTimeFormat>();

/** "22 November 2026 at 08:15 UTC"; in German "22. November 2026 um 08:15 UTC". */
export function formatExpiry(at: Date | string, locale: Locale = 'en'): string {
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) throw new TypeError('expiresAt is not a valid date');
  let format = dateFormats.get(locale);
  if (!format) {
    format = new Intl.DateTimeFormat(DATE_LOCALES[locale], {
      timeZone: 'UTC',
      dateStyle: 'long',
      timeStyle: 'short',
    });
    dateFormats.set(locale, format);
  }
  return `${format.format(date)} UTC`;
}

function checkedLink(link: string): string {
  const url = new URL(link);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError('link must be an http(s) URL');
  return url.toString();
}

export function renderInvitation(input: InvitationMailInput): RenderedMail {
  const tx = texts(input.locale);
  const app = oneLine(input.appName);
  const org = oneLine(input.inviterOrg);
  const firstName = oneLine(input.firstName);
  const link = checkedLink(input.link);
  const expires = formatExpiry(input.expiresAt, tx.locale);
  const values = { app, org, expires, name: firstName };
  const text = [
    tx.t('helloName', values),
    '',
    tx.t('invitationLeadText', values),
    '',
    link,
    '',
    tx.t('invitationExpires', values),
    '',
    tx.t('invitationIgnore'),
    '',
    tx.t('signature', values),
    '',
  ].join('\n');
  const href = escapeHtml(link);
  const html = layout(
    tx,
    app,
    `<p>${tx.h('helloName', values)}</p>
<p>${tx.h('invitationLeadHtml', values)}</p>
<p style="margin:24px 0;"><a href="${href}" style="display:inline-block;background:#0b5cff;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:bold;">${tx.h('invitationButton')}</a></p>
<p>${tx.h('invitationCopyLink')}<br><a href="${href}" style="color:#0b5cff;word-break:break-all;">${href}</a></p>
<p>${tx.h('invitationExpires', values)}</p>
<p>${tx.h('invitationIgnore')}</p>
<p>${tx.h('signature', values)}</p>`,
  );
  return { subject: tx.t('invitationSubject', values), text, html };
}

/** Account changes the owner is told about, so that a change they did not make is noticed. */
export type SecurityNoticeKind =
  | 'password_changed'
  | 'totp_added'
  | 'totp_removed'
  | 'email_changed'
  | 'backup_codes_created'
  | 'backup_codes_removed'
  | 'backup_code_used'
  | 'passkey_added'
  | 'passkey_removed'
  | 'security_key_added'
  | 'security_key_removed';

export interface SecurityNoticeInput extends MailLocale {
  kind: SecurityNoticeKind;
  appName: string;
  at: Date | string;
  /** For `email_changed`: the new address (the notice goes to the old one). */
  newEmail?: string;
  /** For `backup_code_used`: how many unused backup codes are left. */
  remaining?: number;
}

/** Each notice's subject and lead sentence (`{app}`, `{when}`). */
const NOTICES: Record<SecurityNoticeKind, { subject: MailKey; lead: MailKey }> = {
  password_changed: { subject: 'passwordChangedSubject', lead: 'passwordChangedLead' },
  totp_added: { subject: 'totpAddedSubject', lead: 'totpAddedLead' },
  totp_removed: { subject: 'totpRemovedSubject', lead: 'totpRemovedLead' },
  email_changed: { subject: 'emailChangedSubject', lead: 'emailChangedLead' },
  backup_codes_created: { subject: 'backupCodesCreatedSubject', lead: 'backupCodesCreatedLead' },
  backup_codes_removed: { subject: 'backupCodesRemovedSubject', lead: 'backupCodesRemovedLead' },
  backup_code_used: { subject: 'backupCodeUsedSubject', lead: 'backupCodeUsedLead' },
  passkey_added: { subject: 'passkeyAddedSubject', lead: 'passkeyAddedLead' },
  passkey_removed: { subject: 'passkeyRemovedSubject', lead: 'passkeyRemovedLead' },
  security_key_added: { subject: 'securityKeyAddedSubject', lead: 'securityKeyAddedLead' },
  security_key_removed: { subject: 'securityKeyRemovedSubject', lead: 'securityKeyRemovedLead' },
};

/** The lead of a notice: what changed and when, the new address, and how many backup codes are left. */
function noticeLead(tx: Texts, input: SecurityNoticeInput, app: string): string {
  const when = formatExpiry(input.at, tx.locale);
  if (input.kind === 'email_changed' && input.newEmail)
    return tx.t('emailChangedToLead', { app, when, newEmail: oneLine(input.newEmail) });
  const lead = tx.t(NOTICES[input.kind].lead, { app, when });
  if (input.kind !== 'backup_code_used' || input.remaining === undefined) return lead;
  const left = tx.t(input.remaining <= 3 ? 'backupCodesLeftFew' : 'backupCodesLeft', {
    remaining: input.remaining,
  });
  return `${lead} ${left}`;
}

/**
 * A notice of a security-relevant change. It carries no code, link or secret: only what changed
 * and when, and what to do if the owner did not make the change.
 */
export function renderSecurityNotice(input: SecurityNoticeInput): RenderedMail {
  const tx = texts(input.locale);
  const app = oneLine(input.appName);
  return noticeMail(tx, app, tx.t(NOTICES[input.kind].subject, { app }), noticeLead(tx, input, app), [
    tx.t('noticeIfYou'),
    tx.t('noticeIfNot', { app }),
  ]);
}

export interface LockoutNoticeInput extends MailLocale {
  appName: string;
  /** When the lockout ends. */
  until: Date | string;
  /** The "Forgot password" page, where a recovery ends the lockout at once. */
  recoveryUrl: string;
}

/** Marks where a link goes in an escaped text (no catalogue text holds a NUL). */
const SLOT = '\u0000link\u0000';

/**
 * Tells the owner that sign-in to their account is paused after too many wrong passwords, and what
 * to do next. Like the other notices it carries no code, token or secret.
 */
export function renderLockoutNotice(input: LockoutNoticeInput): RenderedMail {
  const tx = texts(input.locale);
  const app = oneLine(input.appName);
  const until = formatExpiry(input.until, tx.locale);
  const link = checkedLink(input.recoveryUrl);
  const lead = tx.t('lockoutLead', { app, until });
  const ifNot = tx.t('lockoutIfNot');
  const signature = tx.t('signature', { app });
  const text = [
    tx.t('hello'),
    '',
    lead,
    '',
    tx.t('lockoutOptions'),
    `- ${tx.t('lockoutWait', { until })}`,
    `- ${tx.t('lockoutResetText', { link })}`,
    `- ${tx.t('lockoutAdmin', { app })}`,
    '',
    ifNot,
    '',
    signature,
    '',
  ].join('\n');
  const anchor = `<a href="${escapeHtml(link)}" style="color:#0b5cff;">${tx.h('lockoutForgotPassword')}</a>`;
  const html = layout(
    tx,
    app,
    `<p>${tx.h('hello')}</p>
<p>${escapeHtml(lead)}</p>
<p>${tx.h('lockoutOptions')}</p>
<ul>
<li>${tx.h('lockoutWait', { until })}</li>
<li>${tx.h('lockoutResetHtml', { link: SLOT }).replace(SLOT, anchor)}</li>
<li>${tx.h('lockoutAdmin', { app })}</li>
</ul>
<p>${escapeHtml(ifNot)}</p>
<p>${escapeHtml(signature)}</p>`,
  );
  return { subject: tx.t('lockoutSubject', { app }), text, html };
}

export interface UnprovenAccountNoticeInput extends MailLocale {
  appName: string;
  at: Date | string;
}

/**
 * Tells the owner of an address that an account someone had started with it, without ever proving
 * the address, was handed to them only after every way into it was removed. No code, link or secret.
 */
export function renderUnprovenAccountNotice(input: UnprovenAccountNoticeInput): RenderedMail {
  const tx = texts(input.locale);
  const app = oneLine(input.appName);
  const when = formatExpiry(input.at, tx.locale);
  return noticeMail(tx, app, tx.t('unprovenSubject', { app }), tx.t('unprovenLead', { app, when }), [
    tx.t('unprovenNext'),
    tx.t('unprovenIfNot', { app }),
  ]);
}

export interface WebhookDisabledNoticeInput extends MailLocale {
  appName: string;
  /** The endpoint's URL. */
  url: string;
}

/** Tells an organisation's admins that a webhook endpoint failed for 24 hours and was disabled. */
export function renderWebhookDisabledNotice(input: WebhookDisabledNoticeInput): RenderedMail {
  const tx = texts(input.locale);
  const app = oneLine(input.appName);
  const text = tx.t('webhookDisabledBody', { app, url: oneLine(input.url) });
  return {
    subject: tx.t('webhookDisabledSubject', { app }),
    text,
    html: layout(tx, app, `<p>${escapeHtml(text)}</p>`),
  };
}

/** A notice: greeting, lead, two closing sentences (one paragraph in HTML), the signature. */
function noticeMail(
  tx: Texts,
  app: string,
  subject: string,
  lead: string,
  after: readonly [string, string],
): RenderedMail {
  const signature = tx.t('signature', { app });
  const text = [tx.t('hello'), '', lead, '', ...after, '', signature, ''].join('\n');
  const html = layout(
    tx,
    app,
    `<p>${tx.h('hello')}</p>
<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(after[0])} ${escapeHtml(after[1])}</p>
<p>${escapeHtml(signature)}</p>`,
  );
  return { subject, text, html };
}
