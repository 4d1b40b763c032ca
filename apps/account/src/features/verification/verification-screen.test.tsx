// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';

resetScreenBetweenTests();

const flow = (state: string, messages: unknown[] = []) =>
  browserFlow('verification', 'v-1', state, [], messages);

describe('verification screen', () => {
  it('prefills the code from the query, shows a wrong code, and goes to login on success', async () => {
    window.history.replaceState(null, '', '/account/verification?flow=v-1&code=123456');
    let tries = 0;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/self-service/verification/flows')
        return { status: 200, body: flow('sent_email') };
      if (method === 'POST') {
        tries++;
        return tries === 1
          ? {
              status: 200,
              body: flow('sent_email', [
                {
                  id: 4070006,
                  type: 'error',
                  text: 'The verification code is invalid or has already been used. Please try again.',
                },
              ]),
            }
          : { status: 200, body: flow('passed_challenge', [{ id: 1080002, type: 'success', text: 'ok' }]) };
      }
      return { status: 401, body: {} };
    });
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Verify your email address' })).toBeTruthy();
    expect(screen.getByText('Enter the code you received via email to proceed.')).toBeTruthy();
    const code = screen.getByLabelText('Verification code') as HTMLInputElement;
    expect(code.value).toBe('123456');
    expect(code.getAttribute('placeholder')).toBe('XXXXXX');
    expect(code.getAttribute('inputmode')).toBe('numeric');
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain('The verification code is invalid');
    fireEvent.change(code, { target: { value: '654321' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(window.location.pathname).toBe('/account/login'));
    expect(calls.filter((c) => c.method === 'POST').at(-1)!.body).toEqual({
      method: 'code',
      code: '654321',
      csrf_token: 'csrf-1',
    });
  });
});
