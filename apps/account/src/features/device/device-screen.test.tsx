// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';

resetScreenBetweenTests();

describe('device screen (Connect a device)', () => {
  it('one field forces upper case and the hyphen; a wrong code shows an error and keeps the page', async () => {
    window.history.replaceState(null, '', '/account/device?device_challenge=c-1');
    const { calls } = mockFetch(({ url }) =>
      url.pathname === '/login/device/verify'
        ? { status: 400, body: { errorCode: 'DEVICE_CODE_INVALID', message: 'This code is not valid.' } }
        : { status: 401, body: {} },
    );
    render(<Router />);
    const field = (await screen.findByLabelText('Device code')) as HTMLInputElement;
    expect(screen.getByRole('heading', { name: 'Connect a device' })).toBeTruthy();
    const submit = screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.change(field, { target: { value: 'wdjbmjht' } });
    expect(field.value).toBe('WDJB-MJHT');
    expect(submit.disabled).toBe(false);
    fireEvent.click(submit);
    expect((await screen.findByText(/This code is not valid/)).textContent).toContain('Check it against');
    expect(calls.find((c) => c.url.pathname === '/login/device/verify')!.body).toEqual({
      deviceChallenge: 'c-1',
      userCode: 'WDJB-MJHT',
    });
    expect(window.location.pathname).toBe('/account/device');
  });

  it('a used code ends on a clear error with a way to start again', async () => {
    window.history.replaceState(null, '', '/account/device?device_challenge=c-2');
    mockFetch(({ url }) =>
      url.pathname === '/login/device/verify'
        ? { status: 400, body: { errorCode: 'DEVICE_CODE_USED', message: 'used' } }
        : { status: 401, body: {} },
    );
    render(<Router />);
    const field = (await screen.findByLabelText('Device code')) as HTMLInputElement;
    fireEvent.change(field, { target: { value: 'WDJB-MJHT' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    expect((await screen.findByRole('alert')).textContent).toContain('already been used');
    await waitFor(() => expect(window.location.search).toBe('?error=used'));
    expect(screen.getByRole('link', { name: 'Start again' }).getAttribute('href')).toBe('/account/device');
  });

  it('approved says "You can return to your terminal"', async () => {
    window.history.replaceState(null, '', '/account/device?status=approved');
    mockFetch(() => ({ status: 401, body: {} }));
    render(<Router />);
    expect((await screen.findByRole('status')).textContent).toBe('You can return to your terminal.');
  });
});
