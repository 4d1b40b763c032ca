// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MfaStep } from './mfa-step.tsx';

afterEach(cleanup);

describe('MfaStep', () => {
  it('shows "Enter your 2FA code", the code input and the support contact', () => {
    render(<MfaStep supportEmail="support@acme.test" onSubmit={() => {}} />);
    expect(screen.getByRole('heading', { name: 'Enter your 2FA code' })).toBeTruthy();
    expect(screen.getByLabelText('2FA code').getAttribute('autocomplete')).toBe('one-time-code');
    expect(screen.getByRole('link', { name: 'support@acme.test' })).toBeTruthy();
  });

  it('offers "Use a security key" only when a key is offered, and asks it on click', () => {
    const onSecurityKey = vi.fn();
    const { rerender } = render(<MfaStep supportEmail="s@acme.test" onSubmit={() => {}} />);
    expect(screen.queryByRole('button', { name: 'Use a security key' })).toBeNull();
    rerender(<MfaStep supportEmail="s@acme.test" onSubmit={() => {}} onSecurityKey={onSecurityKey} />);
    fireEvent.click(screen.getByRole('button', { name: 'Use a security key' }));
    expect(onSecurityKey).toHaveBeenCalledOnce();
  });

  it('submits on the sixth digit', () => {
    const onSubmit = vi.fn();
    render(<MfaStep supportEmail="s@acme.test" onSubmit={onSubmit} />);
    fireEvent.paste(screen.getByLabelText('2FA code'), { clipboardData: { getData: () => '123456' } });
    expect(onSubmit).toHaveBeenCalledWith('123456');
  });

  it('shows the server error', () => {
    render(
      <MfaStep
        supportEmail="s@acme.test"
        errors={['The provided authentication code is invalid, please try again.']}
        onSubmit={() => {}}
      />,
    );
    expect(screen.getByRole('alert').textContent).toContain('The provided authentication code is invalid');
  });

  it('"Use a backup code" switches to a text field whose code goes to onBackupCode', () => {
    const onSubmit = vi.fn();
    const onBackupCode = vi.fn();
    render(<MfaStep supportEmail="s@acme.test" onSubmit={onSubmit} onBackupCode={onBackupCode} />);
    fireEvent.click(screen.getByRole('button', { name: 'Use a backup code' }));
    const input = screen.getByLabelText('Backup code');
    fireEvent.change(input, { target: { value: ' ab12cd34 ' } });
    fireEvent.submit(input.closest('form')!);
    expect(onBackupCode).toHaveBeenCalledWith('ab12cd34');
    expect(onSubmit).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Use the authenticator app' }));
    expect(screen.getByLabelText('2FA code')).toBeTruthy();
  });

  it('offers no backup code where there is no handler (recovery)', () => {
    render(<MfaStep supportEmail="s@acme.test" onSubmit={() => {}} />);
    expect(screen.queryByRole('button', { name: 'Use a backup code' })).toBeNull();
  });
});
