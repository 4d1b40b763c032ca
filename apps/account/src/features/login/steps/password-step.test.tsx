// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PasswordStep } from './password-step.tsx';

afterEach(cleanup);

describe('PasswordStep', () => {
  it('shows "Enter password", "Logging in as" the email, a back arrow and Forgot Password', () => {
    const onBack = vi.fn();
    render(<PasswordStep email="ada@acme.test" onBack={onBack} onSubmit={() => {}} />);
    expect(screen.getByRole('heading', { name: 'Enter password' })).toBeTruthy();
    expect(screen.getByText('Logging in as')).toBeTruthy();
    expect(screen.getByText('ada@acme.test')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Forgot Password' }).getAttribute('href')).toBe(
      '/account/forgot-password',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Back to email' }));
    expect(onBack).toHaveBeenCalled();
  });

  it('submits the password with Continue, disabled while empty', () => {
    const onSubmit = vi.fn();
    render(<PasswordStep email="ada@acme.test" onSubmit={onSubmit} />);
    const button = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    const input = screen.getByLabelText('Password');
    expect(input.getAttribute('type')).toBe('password');
    expect(input.getAttribute('autocomplete')).toBe('current-password');
    fireEvent.change(input, { target: { value: 's3cret!pw' } });
    fireEvent.click(button);
    expect(onSubmit).toHaveBeenCalledWith('s3cret!pw');
  });

  it('offers "Create an account" only when the organisation has self sign-up open', () => {
    render(<PasswordStep email="new@lab.test" onSubmit={() => {}} />);
    expect(screen.queryByRole('link', { name: 'Create an account' })).toBeNull();
    cleanup();
    render(<PasswordStep email="new@lab.test" onSubmit={() => {}} signUp />);
    expect(screen.getByRole('link', { name: 'Create an account' }).getAttribute('href')).toBe(
      '/account/registration',
    );
  });

  it('announces server errors', () => {
    const text =
      'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';
    render(<PasswordStep email="ada@acme.test" errors={[text]} onSubmit={() => {}} />);
    expect(screen.getByRole('alert').textContent).toContain(text);
  });

  it('renders the password confirmation variant without a back arrow', () => {
    render(<PasswordStep email="ada@acme.test" variant="confirmation" onSubmit={() => {}} />);
    expect(screen.getByRole('heading', { name: 'Password confirmation' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Back to email' })).toBeNull();
  });
});
