// @vitest-environment jsdom
import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browserFlow } from '../../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../../testing/screen.ts';
import { EmailConfirmationStep } from './info-steps.tsx';

describe('Email confirmation step', () => {
  resetScreenBetweenTests();

  it('sends the verification code once and links to the verification screen with that flow', async () => {
    const calls: { method: string; url: string; body: unknown }[] = [];
    vi.stubGlobal('fetch', async (input: string | URL, init?: RequestInit) => {
      const url = String(input);
      calls.push({
        method: init?.method ?? 'GET',
        url,
        body: init?.body ? JSON.parse(String(init.body)) : null,
      });
      const flow = browserFlow(
        'verification',
        'ver-1',
        url.includes('/browser') ? 'choose_method' : 'sent_email',
      );
      return new Response(JSON.stringify(flow), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    });

    render(<EmailConfirmationStep email="ada@acme.test" />);
    expect(screen.getByText('ada@acme.test')).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByRole('link').getAttribute('href')).toBe('/account/verification?flow=ver-1'),
    );
    expect(calls.map((c) => [c.method, new URL(c.url).pathname])).toEqual([
      ['GET', '/self-service/verification/browser'],
      ['POST', '/self-service/verification'],
    ]);
    expect(calls[1]?.body).toMatchObject({ method: 'code', email: 'ada@acme.test' });
  });

  it('still links to the verification screen when the code could not be sent', async () => {
    vi.stubGlobal('fetch', async () => new Response('{}', { status: 500 }));
    render(<EmailConfirmationStep email="ada@acme.test" />);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.getByRole('link').getAttribute('href')).toBe('/account/verification');
  });
});
