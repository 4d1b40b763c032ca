// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LoginScreen } from '../features/login/login-screen.tsx';
import { activateLocale, registerLocale } from '../i18n/locale.ts';
import { LocaleRoot } from '../i18n/locale-root.tsx';
import { startLocale } from '../shared/session/person-locale.ts';
import { registry } from '../shared/storage/registry.ts';
import { read, write } from '../shared/storage/storage.ts';
import { mockFetch } from '../testing/fetch-mock.ts';
import { browserFlow, fakeJwt, kratosSession } from '../testing/identity.ts';
import { goTo, resetScreenBetweenTests } from '../testing/screen.ts';
import { german } from './german.ts';
import { Router } from './router.tsx';

// Key screens in German: the locale from the browser (Email step), then from the person's setting
// (account page), and the Language section that saves it with every other trait kept.

const nav = vi.hoisted(() => ({ redirectTo: vi.fn(), replaceLocation: vi.fn() }));
vi.mock('../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../shared/navigation/history.ts')>()),
  redirectTo: nav.redirectTo,
  replaceLocation: nav.replaceLocation,
}));

registerLocale('de', () => Promise.resolve(german));
resetScreenBetweenTests();

const languages = vi.spyOn(navigator, 'languages', 'get');
beforeEach(() => languages.mockReturnValue(['en-US']));
afterEach(() => activateLocale('en'));

const NOW = Date.now();
const session = kratosSession();
const traits = { ...session.identity.traits, name: { first: 'Ada', last: 'Lovelace' }, locale: 'de' };

describe('in German', () => {
  it('a browser asking for de-DE gets the Email step in German, and the identity service is asked in German', async () => {
    languages.mockReturnValue(['de-DE', 'en']);
    window.history.replaceState(null, '', '/account/login');
    write(registry.loginChallenge, 'ch-1');
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/sessions/whoami') return { status: 401, body: { error: { code: 401 } } };
      if (url.pathname === '/self-service/login/browser')
        return { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', []) };
      return undefined;
    });
    await activateLocale(startLocale());
    expect(document.documentElement.lang).toBe('de');
    render(
      <LocaleRoot>
        <LoginScreen search={{}} />
      </LocaleRoot>,
    );
    expect(await screen.findByRole('heading', { name: 'Willkommen' })).toBeTruthy();
    expect(screen.getByLabelText('E-Mail')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Weiter' })).toBeTruthy();
    expect(screen.queryByText('Welcome')).toBeNull();
    await waitFor(() => expect(calls.some((c) => c.url.pathname === '/sessions/whoami')).toBe(true));
    for (const call of calls) expect(call.headers.get('Accept-Language')).toBe('de');
  });

  it('the person’s own setting wins over an English browser; saving English keeps every other trait, switches at once and says so in English, in the section’s live region', async () => {
    write(registry.oauth2Token, {
      accessToken: fakeJwt({
        exp: NOW / 1000 + 3600,
        ext: { user: { authenticationMode: 'ory' }, products: ['Platform'] },
      }),
      refreshToken: 'rt',
      expiresAt: NOW + 3_600_000,
    });
    const flow = (locale: string) => ({
      ...browserFlow('settings', 'sf-1', 'show_form', []),
      identity: { id: 'i-1', traits: { ...traits, locale } },
    });
    // The identity service's record: what the settings flow saves, whoami and new flows show.
    let stored = traits;
    const { calls } = mockFetch(({ url, method }) => {
      if (url.pathname === '/sessions/whoami')
        return { status: 200, body: { ...session, identity: { ...session.identity, traits: stored } } };
      if (url.pathname === '/self-service/settings/browser')
        return { status: 200, body: flow(stored.locale) };
      if (url.pathname === '/sessions' && method === 'GET') return { status: 200, body: [] };
      if (url.pathname === '/self-service/settings' && method === 'POST') {
        stored = { ...stored, locale: 'en' };
        return { status: 200, body: flow('en') };
      }
      return undefined;
    });
    goTo('/account/settings/language');
    render(
      <LocaleRoot>
        <Router />
      </LocaleRoot>,
    );
    expect(await screen.findByRole('heading', { name: 'Kontoeinstellungen' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Sprache' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('de');
    expect(read(registry.locale)).toBe('de');
    const german = screen.getByRole('radio', { name: 'Deutsch' }) as HTMLInputElement;
    expect(german.checked).toBe(true);

    fireEvent.click(screen.getByRole('radio', { name: 'English' }));
    fireEvent.click(screen.getByRole('button', { name: 'Sprache speichern' }));
    expect(await screen.findByRole('heading', { name: 'Account settings' })).toBeTruthy();
    const saved = calls.find((c) => c.method === 'POST' && c.url.pathname === '/self-service/settings')!;
    expect(saved.body).toMatchObject({ method: 'profile', traits: { ...traits, locale: 'en' } });
    expect(document.documentElement.lang).toBe('en');
    expect(read(registry.locale)).toBe('en');
    // The page rendered anew in English still says the language was saved, where the other
    // sections say it: a polite status in the Language section.
    const notice = await screen.findByRole('status');
    expect(notice.textContent).toBe('Your language has been saved.');
    expect(notice.closest('[data-testid="settings-language"]')).not.toBeNull();
  });
});
