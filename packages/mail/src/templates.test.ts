import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  formatExpiry,
  renderInvitation,
  renderRecoveryCode,
  renderLockoutNotice,
  renderSecurityNotice,
  renderUnprovenAccountNotice,
  renderVerificationCode,
  renderWebhookDisabledNotice,
  type SecurityNoticeKind,
} from './templates.ts';
import { createMemoryMailer, retryDelayMs } from './outbox.ts';
import { loadMailConfig, parseSmtpUrl } from './config.ts';

const hostile = `<script>alert("x")</script>&'`;

function expectNoExternalResources(html: string): void {
  expect(html).not.toMatch(/<img|<script|<link|<iframe|url\(/i);
  expect(html).not.toMatch(/src=/i);
}

describe('mail templates', () => {
  it('renders the recovery code in text and HTML', () => {
    const mail = renderRecoveryCode({ code: '123456', appName: 'Platform' });
    expect(mail.subject).toBe('Your Platform password recovery code');
    expect(mail.subject).not.toContain('123456');
    expect(mail.text).toContain('\n123456\n');
    expect(mail.html).toContain('>123456</p>');
    expectNoExternalResources(mail.html);
  });

  it('tells the owner of an address that the ways in someone else set up were removed, with no code or link', () => {
    const mail = renderUnprovenAccountNotice({ appName: hostile, at: '2026-11-28T10:00:00.000Z' });
    expect(mail.subject).toContain('Sign-in methods you did not set up were removed');
    expect(mail.text).toContain('password, passkeys, second factors and sessions were removed');
    expect(mail.text).not.toMatch(/https?:\/\/|\b\d{6}\b/);
    expect(mail.html).not.toContain('<script>');
    expectNoExternalResources(mail.html);
  });

  it('renders the verification code in text and HTML', () => {
    const mail = renderVerificationCode({ code: '654321', appName: 'MAGIC' });
    expect(mail.subject).toBe('Verify your email address for MAGIC');
    expect(mail.text).toContain('654321');
    expect(mail.html).toContain('654321');
    expectNoExternalResources(mail.html);
  });

  it('escapes every value put into HTML', () => {
    for (const mail of [
      renderRecoveryCode({ code: hostile, appName: hostile }),
      renderVerificationCode({ code: hostile, appName: hostile }),
      renderInvitation({
        link: 'https://app.example/account/onboarding?flow=a&code="><script>',
        inviterOrg: hostile,
        firstName: hostile,
        appName: hostile,
        expiresAt: new Date('2026-12-01T10:00:00Z'),
      }),
    ]) {
      expect(mail.html).not.toContain('<script>');
      expect(mail.html).not.toContain('"x"');
      expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
      // The plain-text part carries the values as they are.
      expect(mail.text).toContain('alert("x")');
      expect(mail.subject).not.toMatch(/[\r\n]/);
    }
  });

  it('renders an invitation with the link, organisation, name and expiry', () => {
    const mail = renderInvitation({
      link: 'http://localhost:4000/account/onboarding?flow=f1&code=123456',
      inviterOrg: 'Quant & Co',
      firstName: 'Ada',
      appName: 'Platform',
      expiresAt: '2026-12-01T10:00:00.000Z',
    });
    expect(mail.subject).toBe('Quant & Co invited you to Platform');
    expect(mail.text).toContain('Hello Ada,');
    expect(mail.text).toContain('http://localhost:4000/account/onboarding?flow=f1&code=123456');
    expect(mail.text).toContain('1 December 2026');
    expect(mail.html).toContain('href="http://localhost:4000/account/onboarding?flow=f1&amp;code=123456"');
    expect(mail.html).toContain('Quant &amp; Co');
    expectNoExternalResources(mail.html);
  });

  it('keeps line breaks out of subjects', () => {
    const mail = renderInvitation({
      link: 'https://x.example/',
      inviterOrg: 'Evil\r\nBcc: victim@example.com',
      firstName: 'A',
      appName: 'Platform',
      expiresAt: new Date(),
    });
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });

  it('refuses invitation links that are not http(s)', () => {
    const input = { inviterOrg: 'O', firstName: 'A', appName: 'P', expiresAt: new Date() };
    expect(() => renderInvitation({ ...input, link: 'javascript:alert(1)' })).toThrow();
    expect(() => renderInvitation({ ...input, link: 'not a url' })).toThrow();
  });

  it('formats expiry in UTC and refuses invalid dates', () => {
    expect(formatExpiry(new Date('2026-11-22T08:15:00Z'))).toBe('22 November 2026 at 08:15 UTC');
    expect(() => formatExpiry('nope')).toThrow();
  });

  it('escapes the five HTML special characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

describe('retry schedule', () => {
  it('doubles from 1 s and stays at 5 min', () => {
    expect([1, 2, 3, 4, 9, 10, 11, 100, 10_000].map(retryDelayMs)).toEqual([
      1000, 2000, 4000, 8000, 256_000, 300_000, 300_000, 300_000, 300_000,
    ]);
  });
});

describe('message validation', () => {
  it('accepts a plain message and refuses injected recipients and subjects', async () => {
    const mailer = createMemoryMailer();
    await mailer.enqueue({ to: 'ada@example.com', subject: 'Hi', text: 't', html: '<p>h</p>' });
    expect(mailer.messages).toHaveLength(1);
    await expect(
      mailer.enqueue({ to: 'a@example.com, b@example.com', subject: 'Hi', text: '', html: '' }),
    ).rejects.toThrow();
    await expect(
      mailer.enqueue({ to: 'a@example.com', subject: 'Hi\r\nBcc: x@y.z', text: '', html: '' }),
    ).rejects.toThrow();
    await expect(
      mailer.enqueue({ to: 'not-an-address', subject: 'Hi', text: '', html: '' }),
    ).rejects.toThrow();
  });
});

describe('mail config', () => {
  it('parses SMTP URLs', () => {
    expect(parseSmtpUrl('smtp://127.0.0.1:2525')).toEqual({ host: '127.0.0.1', port: 2525, secure: false });
    expect(parseSmtpUrl('smtps://u%40x:p%3Aw@mail.example.com')).toEqual({
      host: 'mail.example.com',
      port: 465,
      secure: true,
      user: 'u@x',
      pass: 'p:w',
    });
    expect(() => parseSmtpUrl('http://x')).toThrow();
  });

  it('defaults to the local SMTP catcher', () => {
    expect(loadMailConfig({})).toEqual({
      smtp: { host: '127.0.0.1', port: 2525, secure: false },
      from: '"Acme Research" <no-reply@acme.localhost>',
    });
    expect(() => loadMailConfig({ SMTP_URL: 'ftp://x' })).toThrow();
  });
});

describe('security notices', () => {
  const kinds: [SecurityNoticeKind, RegExp][] = [
    ['password_changed', /^Your Acme password was changed$/],
    ['totp_added', /^Two-factor authentication was turned on for Acme$/],
    ['totp_removed', /^Two-factor authentication was turned off for Acme$/],
    ['email_changed', /^The email address of your Acme account was changed$/],
    ['backup_codes_created', /^New backup codes were made for your Acme account$/],
    ['backup_codes_removed', /^The backup codes of your Acme account were removed$/],
    ['backup_code_used', /^A backup code was used to sign in to Acme$/],
    ['passkey_added', /^A passkey was added to your Acme account$/],
    ['passkey_removed', /^A passkey was removed from your Acme account$/],
    ['security_key_added', /^A security key was added to your Acme account$/],
    ['security_key_removed', /^A security key was removed from your Acme account$/],
  ];
  it.each(kinds)('%s: subject, when, and what to do', (kind, subject) => {
    const mail = renderSecurityNotice({ kind, appName: 'Acme', at: new Date('2026-11-25T13:00:00Z') });
    expect(mail.subject).toMatch(subject);
    expect(mail.text).toContain('on 25 November 2026 at 13:00 UTC.');
    expect(mail.text).toContain('If you did not, recover your password at once');
    expectNoExternalResources(mail.html);
  });

  it('a used backup code says how many are left, and to make new ones when few are', () => {
    const at = '2026-11-25T13:00:00Z';
    const many = renderSecurityNotice({ kind: 'backup_code_used', appName: 'Acme', at, remaining: 11 });
    expect(many.text).toContain('11 unused backup codes are left.');
    const one = renderSecurityNotice({ kind: 'backup_code_used', appName: 'Acme', at, remaining: 1 });
    expect(one.text).toContain('1 unused backup code is left; make a new set in your account settings.');
  });

  it('escapes a hostile new address and keeps it on one line', () => {
    const mail = renderSecurityNotice({
      kind: 'email_changed',
      appName: 'Acme',
      at: '2026-11-25T13:00:00Z',
      newEmail: `${hostile}\nBcc: x@evil.test`,
    });
    expect(mail.html).not.toContain('<script>');
    expect(mail.text).not.toMatch(/\nBcc:/);
  });
});

describe('lockout notice', () => {
  it('says until when sign-in is paused and what to do, and carries no code', () => {
    const mail = renderLockoutNotice({
      appName: 'Acme',
      until: new Date('2026-11-25T13:15:00Z'),
      recoveryUrl: 'https://account.example.com/account/forgot-password',
    });
    expect(mail.subject).toBe('Sign-in to your Acme account is paused');
    expect(mail.text).toContain('paused until 25 November 2026 at 13:15 UTC');
    expect(mail.text).toContain('Forgot password');
    expect(mail.text).toContain('https://account.example.com/account/forgot-password');
    expect(mail.text).toContain('administrator');
    expect(mail.text).not.toMatch(/\b\d{6}\b/);
    expectNoExternalResources(mail.html);
  });

  it('refuses a recovery link that is not http(s)', () => {
    expect(() =>
      renderLockoutNotice({ appName: 'Acme', until: new Date(), recoveryUrl: 'javascript:alert(1)' }),
    ).toThrow();
  });
});

describe('mails in the reader’s locale', () => {
  it('the recovery code mail in German: subject, body and <html lang="de">', () => {
    const mail = renderRecoveryCode({ code: '123456', appName: 'Platform', locale: 'de' });
    expect(mail.subject).toBe('Ihr Wiederherstellungscode für das Passwort bei Platform');
    expect(mail.text).toContain('Guten Tag,');
    expect(mail.text).toContain('\n123456\n');
    expect(mail.text).toContain('Ihr Platform-Team');
    expect(mail.html).toContain('<html lang="de">');
    expect(mail.html).toContain('Falls Sie das nicht angefordert haben');
    expect(renderRecoveryCode({ code: '1', appName: 'P' }).html).toContain('<html lang="en">');
  });

  it('dates by Intl and counts by ICU plurals, per locale', () => {
    const at = new Date('2026-11-25T13:00:00Z');
    expect(formatExpiry(at, 'de')).toBe('25. November 2026 um 13:00 UTC');
    const one = renderSecurityNotice({
      kind: 'backup_code_used',
      appName: 'Acme',
      at,
      remaining: 1,
      locale: 'de',
    });
    expect(one.subject).toBe('Bei der Anmeldung bei Acme wurde ein Backup-Code verwendet');
    expect(one.text).toContain('Am 25. November 2026 um 13:00 UTC wurde');
    expect(one.text).toContain('Es ist noch 1 unbenutzter Backup-Code übrig; erstellen Sie');
    const many = renderSecurityNotice({
      kind: 'backup_code_used',
      appName: 'Acme',
      at,
      remaining: 8,
      locale: 'de',
    });
    expect(many.text).toContain('Es sind noch 8 unbenutzte Backup-Codes übrig.');
  });

  it('an invitation in German keeps the link and escapes the values', () => {
    const mail = renderInvitation({
      link: 'https://app.example/account/onboarding?flow=f&code=1',
      inviterOrg: hostile,
      firstName: 'Ada',
      appName: 'Platform',
      expiresAt: '2026-12-01T10:00:00.000Z',
      locale: 'de',
    });
    expect(mail.subject).toBe(`${hostile} hat Sie zu Platform eingeladen`);
    expect(mail.text).toContain('Guten Tag Ada,');
    expect(mail.text).toContain('Die Einladung läuft am 1. Dezember 2026 um 10:00 UTC ab.');
    expect(mail.html).toContain('>Einladung annehmen</a>');
    expect(mail.html).not.toContain('<script>');
  });

  it('a locale value that is not shipped is never put into the mail (English, lang="en")', () => {
    const forged = 'de"><script>alert(1)</script>' as never;
    for (const mail of [
      renderRecoveryCode({ code: '123456', appName: 'P', locale: forged }),
      renderSecurityNotice({ kind: 'password_changed', appName: 'P', at: new Date(), locale: forged }),
    ]) {
      expect(mail.html).toContain('<html lang="en">');
      expect(mail.html).not.toContain('script');
      expect(mail.text).toContain('Hello,');
    }
  });

  it('the webhook-disabled notice, in English as before and in German', () => {
    const url = 'https://hooks.example/in';
    const en = renderWebhookDisabledNotice({ appName: 'Acme', url });
    expect(en.subject).toBe('Acme: a webhook endpoint was disabled');
    expect(en.text).toBe(
      'A webhook endpoint of your organisation, https://hooks.example/in, failed every delivery for 24 hours and was disabled. Events are no longer sent to it. Fix the receiver, then set the endpoint active again in the Acme admin console (Webhooks); its failed deliveries can be redelivered from there.',
    );
    const de = renderWebhookDisabledNotice({ appName: 'Acme', url, locale: 'de' });
    expect(de.subject).toBe('Acme: Ein Webhook-Endpunkt wurde deaktiviert');
    expect(de.html).toContain('<html lang="de">');
    expect(de.text).toContain(url);
  });
});
