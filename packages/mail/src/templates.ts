import type { MailMessage } from './outbox.ts';

export type RenderedMail = Omit<MailMessage, 'to'>;

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

function layout(appName: string, bodyHtml: string): string {
  const app = escapeHtml(appName);
  return `<!doctype html>
<html lang="en">
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

export interface CodeMailInput {
  code: string;
  appName: string;
}

/** A mail that hands over a one-time code: greeting, lead line, the code, a reassurance, the signature. */
function codeMail(app: string, subject: string, lead: string, ignore: string, code: string): RenderedMail {
  const text = ['Hello,', '', lead, '', code, '', ignore, '', `The ${app} team`, ''].join('\n');
  const html = layout(
    app,
    `<p>Hello,</p>
<p>${escapeHtml(lead)}</p>
${codeBlock(code)}
<p>${escapeHtml(ignore)}</p>
<p>The ${escapeHtml(app)} team</p>`,
  );
  return { subject, text, html };
}

export function renderRecoveryCode({ code, appName }: CodeMailInput): RenderedMail {
  const app = oneLine(appName);
  return codeMail(
    app,
    `Your ${app} password recovery code`,
    `Someone asked to recover the password of your ${app} account. Enter this code to continue:`,
    'If you did not ask for this, you can ignore this email: your password stays unchanged.',
    code,
  );
}

export function renderVerificationCode({ code, appName }: CodeMailInput): RenderedMail {
  const app = oneLine(appName);
  return codeMail(
    app,
    `Verify your email address for ${app}`,
    `Enter this code to verify your email address for ${app}:`,
    'If you did not ask for this, you can ignore this email.',
    code,
  );
}

export interface InvitationMailInput {
  /** The onboarding link (absolute http or https URL). */
  link: string;
  /** Name of the inviting organisation. */
  inviterOrg: string;
  firstName: string;
  appName: string;
  expiresAt: Date | string;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  dateStyle: 'long',
  timeStyle: 'short',
});

/** "22 November 2026 at 08:15 UTC" */
export function formatExpiry(at: Date | string): string {
  const date = typeof at === 'string' ? new Date(at) : at;
  if (Number.isNaN(date.getTime())) throw new TypeError('expiresAt is not a valid date');
  return `${dateFormat.format(date)} UTC`;
}

function checkedLink(link: string): string {
  const url = new URL(link);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError('link must be an http(s) URL');
  return url.toString();
}

export function renderInvitation(input: InvitationMailInput): RenderedMail {
  const app = oneLine(input.appName);
  const org = oneLine(input.inviterOrg);
  const firstName = oneLine(input.firstName);
  const link = checkedLink(input.link);
  const expires = formatExpiry(input.expiresAt);
  const subject = `${org} invited you to ${app}`;
  const text = [
    `Hello ${firstName},`,
    '',
    `${org} invited you to join ${app}. Open this link to set up your account:`,
    '',
    link,
    '',
    `The invitation expires on ${expires}. If it has expired, ask ${org} for a new one.`,
    '',
    'If you did not expect this invitation, you can ignore this email.',
    '',
    `The ${app} team`,
    '',
  ].join('\n');
  const html = layout(
    app,
    `<p>Hello ${escapeHtml(firstName)},</p>
<p>${escapeHtml(org)} invited you to join ${escapeHtml(app)}. Use the button below to set up your account.</p>
<p style="margin:24px 0;"><a href="${escapeHtml(link)}" style="display:inline-block;background:#0b5cff;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:bold;">Accept the invitation</a></p>
<p>Or copy this link into your browser:<br><a href="${escapeHtml(link)}" style="color:#0b5cff;word-break:break-all;">${escapeHtml(link)}</a></p>
<p>The invitation expires on ${escapeHtml(expires)}. If it has expired, ask ${escapeHtml(org)} for a new one.</p>
<p>If you did not expect this invitation, you can ignore this email.</p>
<p>The ${escapeHtml(app)} team</p>`,
  );
  return { subject, text, html };
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

export interface SecurityNoticeInput {
  kind: SecurityNoticeKind;
  appName: string;
  at: Date | string;
  /** For `email_changed`: the new address (the notice goes to the old one). */
  newEmail?: string;
  /** For `backup_code_used`: how many unused backup codes are left. */
  remaining?: number;
}

const NOTICES: Record<
  SecurityNoticeKind,
  { subject: (app: string) => string; lead: (app: string) => string }
> = {
  password_changed: {
    subject: (app) => `Your ${app} password was changed`,
    lead: (app) => `The password of your ${app} account was changed`,
  },
  totp_added: {
    subject: (app) => `Two-factor authentication was turned on for ${app}`,
    lead: (app) => `An authenticator app was added as the second factor of your ${app} account`,
  },
  totp_removed: {
    subject: (app) => `Two-factor authentication was turned off for ${app}`,
    lead: (app) => `The authenticator app was removed from your ${app} account`,
  },
  email_changed: {
    subject: (app) => `The email address of your ${app} account was changed`,
    lead: (app) => `The email address of your ${app} account was changed`,
  },
  backup_codes_created: {
    subject: (app) => `New backup codes were made for your ${app} account`,
    lead: (app) =>
      `A new set of backup codes was made for your ${app} account, and any earlier backup codes no longer work. This happened`,
  },
  backup_codes_removed: {
    subject: (app) => `The backup codes of your ${app} account were removed`,
    lead: (app) => `The backup codes of your ${app} account were removed`,
  },
  backup_code_used: {
    subject: (app) => `A backup code was used to sign in to ${app}`,
    lead: (app) =>
      `A backup code was used instead of the authenticator app to sign in to your ${app} account`,
  },
  passkey_added: {
    subject: (app) => `A passkey was added to your ${app} account`,
    lead: (app) => `A passkey was added to your ${app} account; it can sign in without a password`,
  },
  passkey_removed: {
    subject: (app) => `A passkey was removed from your ${app} account`,
    lead: (app) => `A passkey was removed from your ${app} account`,
  },
  security_key_added: {
    subject: (app) => `A security key was added to your ${app} account`,
    lead: (app) => `A security key was added as a second factor of your ${app} account`,
  },
  security_key_removed: {
    subject: (app) => `A security key was removed from your ${app} account`,
    lead: (app) => `A security key was removed from the second factors of your ${app} account`,
  },
};

/**
 * A notice of a security-relevant change. It carries no code, link or secret: only what changed
 * and when, and what to do if the owner did not make the change.
 */
export function renderSecurityNotice(input: SecurityNoticeInput): RenderedMail {
  const app = oneLine(input.appName);
  const notice = NOTICES[input.kind];
  const when = formatExpiry(input.at);
  const target = input.kind === 'email_changed' && input.newEmail ? ` to ${oneLine(input.newEmail)}` : '';
  const left =
    input.kind === 'backup_code_used' && input.remaining !== undefined
      ? ` ${input.remaining} unused backup code${input.remaining === 1 ? ' is' : 's are'} left${input.remaining <= 3 ? '; make a new set in your account settings' : ''}.`
      : '';
  const lead = `${notice.lead(app)}${target} on ${when}.${left}`;
  const ifYou = 'If you made this change, there is nothing more to do.';
  const ifNot = `If you did not, recover your password at once and tell your ${app} administrator.`;
  const text = ['Hello,', '', lead, '', ifYou, ifNot, '', `The ${app} team`, ''].join('\n');
  const html = layout(
    app,
    `<p>Hello,</p>
<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(ifYou)} ${escapeHtml(ifNot)}</p>
<p>The ${escapeHtml(app)} team</p>`,
  );
  return { subject: notice.subject(app), text, html };
}

export interface LockoutNoticeInput {
  appName: string;
  /** When the lockout ends. */
  until: Date | string;
  /** The "Forgot password" page, where a recovery ends the lockout at once. */
  recoveryUrl: string;
}

/**
 * Tells the owner that sign-in to their account is paused after too many wrong passwords, and what
 * to do next. Like the other notices it carries no code, token or secret.
 */
export function renderLockoutNotice(input: LockoutNoticeInput): RenderedMail {
  const app = oneLine(input.appName);
  const until = formatExpiry(input.until);
  const link = checkedLink(input.recoveryUrl);
  const subject = `Sign-in to your ${app} account is paused`;
  const lead = `There were too many wrong password attempts for your ${app} account, so signing in with a password is paused until ${until}.`;
  const options = [
    `- wait until ${until} and sign in again;`,
    `- or reset your password with "Forgot password" (${link}), which ends the pause at once;`,
    `- or ask your ${app} administrator to end it.`,
  ];
  const ifNot = `If these attempts were not yours, someone may be guessing your password: reset it and tell your administrator.`;
  const text = [
    'Hello,',
    '',
    lead,
    '',
    'What you can do:',
    ...options,
    '',
    ifNot,
    '',
    `The ${app} team`,
    '',
  ].join('\n');
  const html = layout(
    app,
    `<p>Hello,</p>
<p>${escapeHtml(lead)}</p>
<p>What you can do:</p>
<ul>
<li>wait until ${escapeHtml(until)} and sign in again;</li>
<li>or reset your password with <a href="${escapeHtml(link)}" style="color:#0b5cff;">Forgot password</a>, which ends the pause at once;</li>
<li>or ask your ${escapeHtml(app)} administrator to end it.</li>
</ul>
<p>${escapeHtml(ifNot)}</p>
<p>The ${escapeHtml(app)} team</p>`,
  );
  return { subject, text, html };
}

export interface UnprovenAccountNoticeInput {
  appName: string;
  at: Date | string;
}

/**
 * Tells the owner of an address that an account someone had started with it, without ever proving
 * the address, was handed to them only after every way into it was removed. No code, link or secret.
 */
export function renderUnprovenAccountNotice(input: UnprovenAccountNoticeInput): RenderedMail {
  const app = oneLine(input.appName);
  const when = formatExpiry(input.at);
  const subject = `Sign-in methods you did not set up were removed from your ${app} account`;
  const lead = `An ${app} account had been started with your email address, but the address was never confirmed. On ${when} you became its owner, so its password, passkeys, second factors and sessions were removed: nobody who set them up can sign in with them.`;
  const next = `Sign in as your organisation asks you to; you can add a password or a passkey in your account settings.`;
  const ifNot = `If you did not expect this, tell your ${app} administrator.`;
  const text = ['Hello,', '', lead, '', next, ifNot, '', `The ${app} team`, ''].join('\n');
  const html = layout(
    app,
    `<p>Hello,</p>
<p>${escapeHtml(lead)}</p>
<p>${escapeHtml(next)} ${escapeHtml(ifNot)}</p>
<p>The ${escapeHtml(app)} team</p>`,
  );
  return { subject, text, html };
}
