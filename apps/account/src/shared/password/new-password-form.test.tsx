// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NewPasswordForm } from './new-password-form.tsx';

afterEach(cleanup);

describe('NewPasswordForm', () => {
  it('shows the live checklist and enables Continue only when all rules hold and both match', () => {
    const onSubmit = vi.fn();
    render(<NewPasswordForm changing onSubmit={onSubmit} />);
    const password = screen.getByLabelText('New password', { exact: true });
    const confirm = screen.getByLabelText('Confirm new password');
    expect(password.getAttribute('placeholder')).toBe('Choose new password');
    expect(confirm.getAttribute('placeholder')).toBe('Re-enter new password');
    const button = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    const ok = () => Array.from(document.querySelectorAll('.checklist li.ok')).map((li) => li.textContent);

    fireEvent.change(password, { target: { value: 'abcdefgh' } });
    expect(ok()).toEqual(['Minimum 8 characters']);
    fireEvent.change(password, { target: { value: 'abcdefg1!' } });
    expect(ok()).toEqual([
      'Minimum 8 characters',
      'At least one number',
      'At least one special character (e.g. !@#$%^&*)',
    ]);
    expect(button.disabled).toBe(true);
    fireEvent.change(confirm, { target: { value: 'abcdefg1?' } });
    expect(button.disabled).toBe(true);
    fireEvent.change(confirm, { target: { value: 'abcdefg1!' } });
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    expect(onSubmit).toHaveBeenCalledWith('abcdefg1!');
  });

  it('uses the create placeholders when not changing', () => {
    render(<NewPasswordForm onSubmit={() => {}} />);
    expect(screen.getByLabelText('New password', { exact: true }).getAttribute('placeholder')).toBe(
      'Create password',
    );
    expect(screen.getByLabelText('Confirm new password').getAttribute('placeholder')).toBe(
      'Re-enter password',
    );
  });
});
