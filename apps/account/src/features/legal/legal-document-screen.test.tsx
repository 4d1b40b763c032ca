// @vitest-environment jsdom
import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';

const nav = vi.hoisted(() => ({ replaceDocument: vi.fn() }));
vi.mock('../../shared/navigation/history.ts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../shared/navigation/history.ts')>()),
  replaceDocument: nav.replaceDocument,
}));

resetScreenBetweenTests();

const current = (terms: string, privacy: string) => ({
  terms: { version: '2026-01', url: terms },
  privacy: { version: '2026-01', url: privacy },
});

describe('Terms of Service and Privacy Notice pages', () => {
  it('a guest opens /account/terms: the sample terms, their version, marked as sample text', async () => {
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/terms/current'
        ? {
            status: 200,
            body: current('http://localhost:4000/account/terms', 'http://localhost:4000/account/privacy'),
          }
        : undefined,
    );
    goTo('/account/terms');
    render(<Router />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Terms of Service' })).toBeTruthy();
    expect(screen.getByTestId('document-version').textContent).toBe('Version 2026-01, effective 2026-01-01');
    expect(screen.getByRole('complementary', { name: 'Sample text' }).textContent).toContain(
      'not a real agreement',
    );
    expect(screen.getAllByRole('heading', { level: 2 }).length).toBeGreaterThan(1);
    expect(window.location.pathname).toBe('/account/terms');
    // No session and no token needed: the only call is the user service's current versions.
    expect(calls.map((c) => c.url.pathname)).toEqual(['/terms/current']);
  });

  it('/account/privacy shows the privacy notice, even when the user service does not answer', async () => {
    mockFetch(() => ({ status: 503, body: { errorCode: 'UNAVAILABLE', message: 'down' } }));
    goTo('/account/privacy');
    render(<Router />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Privacy Notice' })).toBeTruthy();
    expect(screen.getByTestId('document-version').textContent).toContain('2026-01');
  });

  it('forwards to the organisation’s real document when the user service points elsewhere', async () => {
    mockFetch(({ url }) =>
      url.pathname === '/terms/current'
        ? { status: 200, body: current('https://acme.example/terms', 'https://acme.example/privacy') }
        : undefined,
    );
    goTo('/account/privacy');
    render(<Router />);
    await waitFor(() => expect(nav.replaceDocument).toHaveBeenCalledWith('https://acme.example/privacy'));
    expect(screen.queryByRole('heading', { name: 'Privacy Notice' })).toBeNull();
  });
});
