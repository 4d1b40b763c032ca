// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmailStep } from './email-step.tsx';

afterEach(cleanup);

describe('EmailStep', () => {
  it('shows the spec texts, the access contact and the terms notice', () => {
    render(<EmailStep accessEmail="access@acme.test" onSubmit={() => {}} />);
    expect(screen.getByRole('heading', { name: 'Welcome' })).toBeTruthy();
    expect(screen.getByLabelText('Email')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'access@acme.test' }).getAttribute('href')).toBe(
      'mailto:access@acme.test',
    );
    expect(screen.getByRole('link', { name: 'Terms of Service' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Privacy Notice' })).toBeTruthy();
  });

  it('disables Continue while the email is empty', () => {
    render(<EmailStep accessEmail="a@acme.test" onSubmit={() => {}} />);
    const button = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    expect(button.disabled).toBe(false);
  });

  it('uses the browser email validity check before submitting', () => {
    const onSubmit = vi.fn();
    render(<EmailStep accessEmail="a@acme.test" onSubmit={onSubmit} />);
    fireEvent.change(screen.getByLabelText('Email'), { target: { value: 'not-an-email' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(screen.getByText('Enter a valid email address.')).toBeTruthy();
    expect(screen.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
  });

  it('submits a valid, trimmed email with Enter', () => {
    const onSubmit = vi.fn();
    render(<EmailStep accessEmail="a@acme.test" onSubmit={onSubmit} initialEmail="" />);
    const input = screen.getByLabelText('Email');
    fireEvent.change(input, { target: { value: ' ada@acme.test ' } });
    fireEvent.submit(input.closest('form')!);
    expect(onSubmit).toHaveBeenCalledWith('ada@acme.test');
  });

  it('keeps the typed email when coming back', () => {
    render(<EmailStep accessEmail="a@acme.test" onSubmit={() => {}} initialEmail="ada@acme.test" />);
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
  });
});
