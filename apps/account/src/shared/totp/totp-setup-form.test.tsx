// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TotpSetupForm } from './totp-setup-form.tsx';

afterEach(cleanup);

const QR = 'data:image/png;base64,iVBORw0KGgo=';

describe('TotpSetupForm', () => {
  it('shows the title, QR code, manual code and copy control', () => {
    render(<TotpSetupForm title="Set up 2FA" qr={QR} secret="JBSWY3DPEHPK3PXP" onSubmit={() => {}} />);
    expect(screen.getByRole('heading', { name: 'Set up 2FA' })).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Authenticator app QR code' }).getAttribute('src')).toBe(QR);
    expect(screen.getByTestId('totp-secret').textContent).toBe('JBSWY3DPEHPK3PXP');
    expect(screen.getByRole('button', { name: 'Copy' })).toBeTruthy();
  });

  it('requires the installed-app checkbox before the code can be entered or submitted', () => {
    const onSubmit = vi.fn();
    render(<TotpSetupForm title="Set up 2FA" qr={QR} secret="S" onSubmit={onSubmit} />);
    const code = screen.getByLabelText('2FA code') as HTMLInputElement;
    expect(code.disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByLabelText('I have installed an authenticator app'));
    expect(code.disabled).toBe(false);
    fireEvent.paste(code, { clipboardData: { getData: () => '654321' } });
    expect(onSubmit).toHaveBeenCalledWith('654321');
  });

  it('offers "Skip for now" only when skipping is allowed', () => {
    const onSkip = vi.fn();
    const { rerender } = render(<TotpSetupForm title="Set up 2FA" onSubmit={() => {}} />);
    expect(screen.queryByRole('button', { name: 'Skip for now' })).toBeNull();
    rerender(<TotpSetupForm title="Set up 2FA" onSubmit={() => {}} onSkip={onSkip} />);
    fireEvent.click(screen.getByRole('button', { name: 'Skip for now' }));
    expect(onSkip).toHaveBeenCalled();
  });

  it('shows errors with the scan-again hint', () => {
    render(
      <TotpSetupForm
        title="Reset your 2FA"
        errors={[
          'The provided authentication code is invalid, please try again.',
          'You will need to scan the QR code again if your previous attempt failed.',
        ]}
        onSubmit={() => {}}
      />,
    );
    expect(screen.getByRole('alert').textContent).toContain('scan the QR code again');
  });
});
