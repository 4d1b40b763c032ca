// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { accessModeText, copy } from '../copy.ts';
import { german } from '../app/german.ts';
import { activatePersonLocale } from '../shared/session/person-locale.ts';
import { read } from '../shared/storage/storage.ts';
import { registry } from '../shared/storage/registry.ts';
import { activateLocale, currentLocale, registerLocale } from './locale.ts';

registerLocale('de', () => Promise.resolve(german));

afterEach(async () => {
  await activateLocale('en');
  localStorage.clear();
});

describe('copy in the active locale', () => {
  it('keeps the English texts exactly, parametrised ones and plurals included', () => {
    expect(copy.login.email.title).toBe('Welcome');
    expect(copy.settings.signedOutOthers(1)).toBe('1 other session was signed out.');
    expect(copy.settings.signedOutOthers(3)).toBe('3 other sessions were signed out.');
    expect(copy.teams.sdkError(500, 'InternalError', undefined)).toBe('Teams error 500 (InternalError)');
    expect(copy.teams.sdkError(500, 'InternalError', 'boom')).toBe('Teams error 500 (InternalError): boom');
    expect(accessModeText('Platform', 'm365', ['ory'])).toBe(
      'You are not authorised to access Platform with Microsoft 365 sign-in. Log out, then sign in with email and password or single sign-on.',
    );
    expect(accessModeText('Platform', 'saml', ['ory', 'm365'])).toBe(
      'You are not authorised to access Platform with saml sign-in. Log out, then sign in with email and password or single sign-on or Microsoft 365.',
    );
  });

  it('binds a section when first read: the same section every time, its texts in the active locale', async () => {
    const email = copy.login.email;
    expect(copy.login.email).toBe(email);
    expect(Object.keys(copy.login)).toContain('email');
    await activateLocale('de');
    expect(email.title).toBe('Willkommen');
    await activateLocale('en');
    expect(email.title).toBe('Welcome');
  });

  it('reads German once German is active, with German plurals and <html lang>', async () => {
    await activateLocale('de');
    expect(currentLocale()).toBe('de');
    expect(document.documentElement.lang).toBe('de');
    expect(copy.login.email.title).toBe('Willkommen');
    expect(copy.settings.signedOutOthers(1)).toBe('1 andere Sitzung wurde abgemeldet.');
    expect(copy.settings.signedOutOthers(2)).toBe('2 andere Sitzungen wurden abgemeldet.');
    expect(copy.accessDenied.product('Research', 'help@example.com')).toContain('Research');
  });

  it('a person’s saved language wins over the browser’s and is kept for the next first paint', async () => {
    await activatePersonLocale('de');
    expect(currentLocale()).toBe('de');
    expect(read(registry.locale)).toBe('de');
    // No saved language (or one we do not ship): the browser's (jsdom: en-US), and nothing kept.
    await activatePersonLocale('fr');
    expect(currentLocale()).toBe('en');
    expect(read(registry.locale)).toBeNull();
  });
});
