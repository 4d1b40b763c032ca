// @vitest-environment jsdom
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { resetScreenBetweenTests } from '../../../testing/screen.ts';
import { SsoStep } from './sso-step.tsx';

describe('SSO step (login step 3)', () => {
  resetScreenBetweenTests();

  it('says it is redirecting and redirects once, without a Proceed button', () => {
    const onRedirect = vi.fn();
    const { rerender } = render(<SsoStep view="redirect" busy={false} onRedirect={onRedirect} />);
    expect(screen.getByText("Redirecting you to your organisation's SSO provider...")).toBeTruthy();
    rerender(<SsoStep view="redirect" busy={true} onRedirect={onRedirect} />);
    expect(onRedirect).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('button', { name: 'Proceed' })).toBeNull();
  });

  it('waits for Proceed when a redirect lock is present', () => {
    const onRedirect = vi.fn();
    render(<SsoStep view="proceed" busy={false} onRedirect={onRedirect} />);
    expect(onRedirect).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Proceed' }));
    expect(onRedirect).toHaveBeenCalledTimes(1);
  });

  it('stops with "Redirect loop detected." after more than 5 redirects', () => {
    const onRedirect = vi.fn();
    render(<SsoStep view="loop" busy={false} onRedirect={onRedirect} />);
    expect(screen.getByRole('alert').textContent).toBe('Redirect loop detected.');
    expect(onRedirect).not.toHaveBeenCalled();
  });
});
