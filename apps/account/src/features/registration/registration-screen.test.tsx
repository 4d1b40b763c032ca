// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';

resetScreenBetweenTests();

const DISABLED = {
  error: {
    id: 'self_service_flow_disabled',
    code: 400,
    status: 'Bad Request',
    reason: 'Registration is not allowed because it was disabled.',
  },
};

describe('registration screen (self sign-up)', () => {
  it('says sign-up is not open when registration is disabled, with a way back to sign-in', async () => {
    window.history.replaceState(null, '', '/account/registration');
    mockFetch(() => ({ status: 400, body: DISABLED }));
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Sign-up is not open' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to sign in' }).getAttribute('href')).toBe('/account/login');
  });

  it('shows the field message of a refused address, then goes to the verification flow the service started', async () => {
    window.history.replaceState(null, '', '/account/registration?flow=r-1');
    const refused = browserFlow('registration', 'r-1', 'choose_method', [
      {
        type: 'input',
        group: 'password',
        attributes: { name: 'traits.email', type: 'email', node_type: 'input', disabled: false },
        messages: [{ id: 4040090, type: 'error', text: 'Sign-up is not open for this email address.' }],
        meta: {},
      },
    ]);
    let posts = 0;
    const { calls } = mockFetch(({ method, url }) => {
      if (url.pathname === '/self-service/registration/flows')
        return { status: 200, body: browserFlow('registration', 'r-1', 'choose_method') };
      if (method === 'POST' && url.pathname === '/self-service/registration') {
        posts++;
        return posts === 1
          ? { status: 400, body: refused }
          : {
              status: 200,
              body: { continue_with: [{ action: 'show_verification_ui', flow: { id: 'v-9' } }] },
            };
      }
      if (url.pathname === '/self-service/verification/flows')
        return { status: 200, body: browserFlow('verification', 'v-9', 'sent_email') };
      return { status: 401, body: {} };
    });
    render(<Router />);
    expect(await screen.findByRole('heading', { name: 'Create your account' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'new@closed.test' } });
    fireEvent.change(screen.getByLabelText('First name'), { target: { value: 'Rosalind' } });
    fireEvent.change(screen.getByLabelText('Last name'), { target: { value: 'Franklin' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Signup-Password-2026!' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText('Sign-up is not open for this email address.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'new@lab.test' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create account' }));
    await waitFor(() => expect(window.location.search).toBe('?flow=v-9'));
    expect(window.location.pathname).toBe('/account/verification');
    expect(calls.filter((c) => c.method === 'POST').at(-1)!.body).toEqual({
      method: 'password',
      traits: { email: 'new@lab.test', name: { first: 'Rosalind', last: 'Franklin' } },
      password: 'Signup-Password-2026!',
      csrf_token: 'csrf-1',
    });
  });
});
