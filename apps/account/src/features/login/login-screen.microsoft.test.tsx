// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Application } from '../../shared/config/env.ts';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { browserFlow } from '../../testing/identity.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { LoginScreen } from './login-screen.tsx';

// A Microsoft 365 address on the Email step (issue 21): the application's m365 login where it has
// one, otherwise a step that says so.

resetScreenBetweenTests();
beforeEach(() => {
  window.history.replaceState(null, '', '/account/login');
  write(registry.loginChallenge, 'ch-1');
});

function answerM365(magic: boolean) {
  mockFetch(({ url }) => {
    if (url.pathname === '/login/config') {
      return {
        status: 200,
        body: { email: 'megan@contoso.test', sso: false, provider: null, m365: true, magic },
      };
    }
    if (url.pathname === '/self-service/login/browser') {
      return { status: 200, body: browserFlow('login', 'flow-1', 'choose_method', []) };
    }
    return { status: 401, body: { error: { code: 401 } } };
  });
}

async function typeEmail() {
  fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'megan@contoso.test' } });
  fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
}

describe('LoginScreen: a Microsoft 365 address', () => {
  it('on Platform: says Platform has no Microsoft 365 sign-in and links to MAGIC’s m365 login', async () => {
    answerM365(true);
    render(<LoginScreen search={{}} />);
    await typeEmail();
    await screen.findByRole('heading', { name: 'Microsoft 365 sign-in' });
    expect(
      screen.getByRole('link', { name: 'Sign in to MAGIC with Microsoft 365' }).getAttribute('href'),
    ).toBe('http://localhost:4001/account/m365-login');
    expect(window.location.pathname).toBe('/account/login');
    expect(read(registry.emailResult)).toMatchObject({ isM365: true, hasMagic: true });

    fireEvent.click(screen.getByRole('button', { name: 'Use another email' }));
    expect(((await screen.findByLabelText('Email')) as HTMLInputElement).value).toBe('megan@contoso.test');
    expect(read(registry.emailResult)).toBeNull();
  });

  it('on Platform, an organisation without MAGIC: the support contact', async () => {
    answerM365(false);
    render(<LoginScreen search={{}} />);
    await typeEmail();
    await screen.findByRole('heading', { name: 'Microsoft 365 sign-in' });
    expect(screen.getByRole('link', { name: 'support@acme.test' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: /MAGIC/ })).toBeNull();
  });

  it.each<Application>(['local', 'magic'])(
    'on %s (m365 allowed and set up): goes to its m365 login',
    async (app) => {
      setConfig(defaultConfig(app));
      answerM365(true);
      render(<LoginScreen search={{}} />);
      await typeEmail();
      await waitFor(() =>
        expect(window.location.pathname + window.location.search).toBe(
          '/account/m365-login?autoContinue=true',
        ),
      );
    },
  );

  it('on local configured with ory only: m365 is not allowed, so the step says so', async () => {
    setConfig({ ...defaultConfig('local'), allowedAuthModes: ['ory'] });
    answerM365(true);
    render(<LoginScreen search={{}} />);
    await typeEmail();
    await screen.findByRole('heading', { name: 'Microsoft 365 sign-in' });
    expect(screen.getByText(/local does not offer Microsoft 365 sign-in/)).toBeTruthy();
  });
});
