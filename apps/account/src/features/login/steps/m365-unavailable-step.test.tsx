// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { resetScreenBetweenTests } from '../../../testing/screen.ts';
import { M365UnavailableStep } from './m365-unavailable-step.tsx';

describe('M365UnavailableStep', () => {
  resetScreenBetweenTests();

  it('says in words that this application has no Microsoft 365 sign-in and links to MAGIC', () => {
    const back = vi.fn();
    render(
      <M365UnavailableStep
        email="megan@contoso.test"
        appName="Platform"
        alternative={{ type: 'magic', url: 'http://localhost:4001/account/m365-login', device: false }}
        onUseAnotherEmail={back}
      />,
    );
    expect(screen.getByRole('heading', { name: 'Microsoft 365 sign-in' })).toBeTruthy();
    expect(
      screen.getByText(
        'megan@contoso.test signs in with Microsoft 365, and Platform does not offer Microsoft 365 sign-in.',
      ),
    ).toBeTruthy();
    expect(
      screen.getByRole('link', { name: 'Sign in to MAGIC with Microsoft 365' }).getAttribute('href'),
    ).toBe('http://localhost:4001/account/m365-login');
    expect(screen.queryByRole('link', { name: 'support@acme.test' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Use another email' }));
    expect(back).toHaveBeenCalledTimes(1);
  });

  it('a device sign-in: links to MAGIC’s device page and says the code stays valid', () => {
    render(
      <M365UnavailableStep
        email="megan@contoso.test"
        appName="Platform"
        alternative={{
          type: 'magic',
          url: 'http://localhost:4001/account/device?login_challenge=l1',
          device: true,
        }}
        onUseAnotherEmail={vi.fn()}
      />,
    );
    expect(screen.getByText(/The code you entered stays valid\./)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Connect the device on MAGIC' }).getAttribute('href')).toBe(
      'http://localhost:4001/account/device?login_challenge=l1',
    );
  });

  it('gives the support contact when the organisation has no MAGIC', () => {
    render(
      <M365UnavailableStep
        email="kim@tailspin.test"
        appName="Platform"
        alternative={{ type: 'support', email: 'support@acme.test' }}
        onUseAnotherEmail={vi.fn()}
      />,
    );
    expect(screen.getByRole('link', { name: 'support@acme.test' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );
    expect(screen.queryByRole('link', { name: /MAGIC/ })).toBeNull();
  });
});
