// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { resetScreenBetweenTests } from '../../../testing/screen.ts';
import type { SsoStepView } from '../sso-redirect.ts';
import type { SsoPopupStatus } from '../use-sso-step.ts';
import { SsoStep } from './sso-step.tsx';

function renderStep(view: SsoStepView, busy = false, popupStatus: SsoPopupStatus = null) {
  const handlers = {
    onRedirect: vi.fn(),
    onTryAgain: vi.fn(),
    onUseAnotherEmail: vi.fn(),
    onUsePassword: vi.fn(),
  };
  const result = render(
    <SsoStep
      view={view}
      busy={busy}
      popupStatus={popupStatus}
      supportEmail="support@acme.test"
      {...handlers}
    />,
  );
  return { ...handlers, ...result };
}

describe('SSO step (login step 3)', () => {
  resetScreenBetweenTests();

  it('says it is redirecting and redirects once, without a Proceed button', () => {
    const { onRedirect, rerender } = renderStep('redirect');
    expect(screen.getByText("Redirecting you to your organisation's SSO provider...")).toBeTruthy();
    rerender(
      <SsoStep
        view="redirect"
        busy={true}
        supportEmail="support@acme.test"
        onRedirect={onRedirect}
        onTryAgain={vi.fn()}
        onUseAnotherEmail={vi.fn()}
        onUsePassword={vi.fn()}
      />,
    );
    expect(onRedirect).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('button', { name: 'Proceed' })).toBeNull();
  });

  it('waits for Proceed when a redirect lock is present', () => {
    const { onRedirect } = renderStep('proceed');
    expect(onRedirect).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Proceed' }));
    expect(onRedirect).toHaveBeenCalledTimes(1);
  });

  it('stops with "Redirect loop detected." after more than 5 redirects, offering Try again', () => {
    const { onRedirect, onTryAgain } = renderStep('loop');
    expect(screen.getByRole('alert').textContent).toBe('Redirect loop detected.');
    expect(onRedirect).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onTryAgain).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('link', { name: 'support@acme.test' })).toBeNull();
  });

  it('after the last try: no Try again, the support contact and Use another email', () => {
    const { onUseAnotherEmail } = renderStep('loop-final');
    expect(screen.getByRole('alert').textContent).toBe('Redirect loop detected.');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(screen.getByRole('link', { name: 'support@acme.test' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Use another email' }));
    expect(onUseAnotherEmail).toHaveBeenCalledTimes(1);
  });

  it.each<SsoStepView>(['redirect', 'proceed', 'loop'])('offers Use another email on the %s view', (view) => {
    const { onUseAnotherEmail } = renderStep(view);
    fireEvent.click(screen.getByRole('button', { name: 'Use another email' }));
    expect(onUseAnotherEmail).toHaveBeenCalledTimes(1);
  });

  it.each<SsoStepView>(['redirect', 'proceed', 'loop', 'loop-final'])(
    'offers "Sign in with a password (administrators)" on the %s view, leading to the password step',
    (view) => {
      const { onUsePassword, onRedirect } = renderStep(view, false);
      const before = onRedirect.mock.calls.length;
      fireEvent.click(screen.getByRole('button', { name: 'Sign in with a password (administrators)' }));
      expect(onUsePassword).toHaveBeenCalledTimes(1);
      expect(onRedirect.mock.calls.length).toBe(before);
    },
  );

  it('disables the password link while busy', () => {
    renderStep('proceed', true);
    const link = screen.getByRole('button', { name: 'Sign in with a password (administrators)' });
    expect((link as HTMLButtonElement).disabled).toBe(true);
  });

  it('inside the Teams frame: never opens by itself; its button opens the pop-up window', () => {
    const { onRedirect } = renderStep('popup');
    expect(onRedirect).not.toHaveBeenCalled();
    expect(screen.getByText("Your organisation's sign-in opens in a new window.")).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with your organisation' }));
    expect(onRedirect).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('button', { name: 'Use another email' })).toBeTruthy();
  });

  it.each([
    ['open', null, true],
    ['closed', 'The sign-in window was closed before you finished.', false],
    ['blocked', 'The sign-in window could not be opened.', false],
    ['failure', 'Signing in through your organisation did not finish.', false],
  ] as const)('pop-up %s: the step says so', (status, alert, disabled) => {
    renderStep('popup', false, status);
    const button = screen.getByRole('button', { name: 'Sign in with your organisation' });
    expect((button as HTMLButtonElement).disabled).toBe(disabled);
    if (alert) expect(screen.getByRole('alert').textContent).toContain(alert);
    else expect(screen.getByRole('status').textContent).toBe('Finish signing in in the new window.');
  });
});
