// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { Router } from '../../app/router.tsx';
import { defaultConfig, setConfig } from '../../shared/config/env.ts';
import { mockFetch, type MockCall } from '../../testing/fetch-mock.ts';
import { CONSOLE_ORG, consoleAdmin, signedInToConsole, type ConsoleAnswer } from '../../testing/console.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';
import { SSO_TEST_MESSAGE } from './decide-sso-test-message.ts';

// The Single sign-on section as the router mounts it, against a stand-in for the console API.

const ORG = CONSOLE_ORG;
const SSO_ADMIN = consoleAdmin(['ViewUsers', 'ManageOrganisationUsers', 'ConfigureSSO']);
const REDIRECTS = {
  signIn: 'http://localhost:4433/self-service/methods/oidc/callback/acme',
  testSignIn: 'http://localhost:4002/admin/sso/test-callback',
};
const SP = {
  entityId: 'http://localhost:4433/self-service/methods/saml/metadata/acme',
  metadataUrl: 'http://localhost:4433/self-service/methods/saml/metadata/acme',
  acsUrl: 'http://localhost:4433/self-service/methods/saml/acs/acme',
};
const PROVIDER = {
  protocol: 'oidc',
  provider: 'acme',
  issuer: 'https://acme.okta.com',
  clientId: 'client-1',
  scopes: ['openid', 'email', 'profile'],
  jit: true,
  enforce: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-02T00:00:00.000Z',
};
const base = `/console/organisations/${ORG}/sso`;

const signedIn = (more: (call: MockCall) => ConsoleAnswer) => signedInToConsole(SSO_ADMIN, more);

resetScreenBetweenTests('admin');

describe('the Single sign-on section', () => {
  it('with no provider: the empty state, the redirect URIs to register, the instructions, and a first save needs the secret', async () => {
    let stored: unknown = null;
    const { calls } = signedIn(({ url, method, body }) => {
      if (url.pathname !== base) return undefined;
      if (method === 'PUT') {
        stored = { ...PROVIDER, ...(body as object) };
        return { status: 200, body: { provider: stored, redirectUris: REDIRECTS, serviceProvider: SP } };
      }
      return { status: 200, body: { provider: stored, redirectUris: REDIRECTS, serviceProvider: SP } };
    });
    goTo('/admin/sso');
    render(<Router />);
    expect(await screen.findByText(/No single sign-on provider is set up/)).toBeTruthy();
    expect(screen.getByTestId('sso-redirect-sign-in').textContent).toBe(REDIRECTS.signIn);
    expect(screen.getByTestId('sso-redirect-test').textContent).toBe(REDIRECTS.testSignIn);
    for (const name of ['Microsoft Entra ID', 'Okta', 'Google Workspace']) {
      expect(screen.getByRole('heading', { name })).toBeTruthy();
    }
    expect(screen.queryByRole('button', { name: 'Test connection' })).toBeNull();
    fireEvent.change(screen.getByLabelText('Issuer URL'), { target: { value: 'https://acme.okta.com' } });
    fireEvent.change(screen.getByLabelText('Client ID'), { target: { value: 'client-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save provider' }));
    expect(await screen.findByText('Enter the client secret.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save provider' }));
    expect(await screen.findByText(/Provider saved/)).toBeTruthy();
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.body).toMatchObject({
      issuer: 'https://acme.okta.com',
      clientId: 'client-1',
      clientSecret: 's3cret',
    });
    // Saved: the secret field is empty again, and says the stored one stays.
    expect(((await screen.findByLabelText(/leave empty to keep/)) as HTMLInputElement).value).toBe('');
  });

  it('Test connection reports each check in words', async () => {
    signedIn(({ url }) => {
      if (url.pathname === base)
        return { status: 200, body: { provider: PROVIDER, redirectUris: REDIRECTS, serviceProvider: SP } };
      if (url.pathname === `${base}/test-connection`) {
        return {
          status: 200,
          body: {
            ok: false,
            checks: [
              {
                check: 'discovery',
                ok: true,
                reason: null,
                value: 'https://acme.okta.com/.well-known/openid-configuration',
              },
              { check: 'issuer', ok: false, reason: 'mismatch', value: 'https://evil.example' },
            ],
          },
        };
      }
      return undefined;
    });
    goTo('/admin/sso');
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Test connection' }));
    const region = await screen.findByRole('region', { name: 'Connection' });
    expect(within(region).getByText('Some checks failed: see below.')).toBeTruthy();
    const items = within(region)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items[0]).toContain('Passed: Discovery document reachable');
    expect(items[1]).toBe('Failed: Issuer matches (it names another issuer. Found: https://evil.example)');
  });

  it('Remove asks first; Cancel sends nothing', async () => {
    const { calls } = signedIn(({ url, method }) => {
      if (url.pathname === base && method === 'DELETE') return { status: 204 };
      if (url.pathname === base)
        return { status: 200, body: { provider: PROVIDER, redirectUris: REDIRECTS, serviceProvider: SP } };
      return undefined;
    });
    goTo('/admin/sso');
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Remove provider' }));
    expect(screen.getByRole('alertdialog').textContent).toContain('Remove the provider?');
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    fireEvent.click(screen.getByRole('button', { name: 'Remove provider' }));
    fireEvent.click(screen.getByRole('button', { name: 'Yes, remove' }));
    expect(await screen.findByText('Provider removed.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'DELETE')).toBe(true);
  });

  it('Test sign-in opens a popup, takes only its own state from its own origin, and shows the claims', async () => {
    const popup = { location: { href: 'about:blank' }, close: vi.fn(), closed: false };
    vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    const { calls } = signedIn(({ url }) => {
      if (url.pathname === base)
        return { status: 200, body: { provider: PROVIDER, redirectUris: REDIRECTS, serviceProvider: SP } };
      if (url.pathname === `${base}/test-sign-in`) {
        return {
          status: 201,
          body: {
            authorizationUrl: 'https://acme.okta.com/authorize?x',
            state: 'st-1',
            redirectUri: REDIRECTS.testSignIn,
            expiresAt: '2026-01-01T00:10:00.000Z',
          },
        };
      }
      if (url.pathname === `${base}/test-sign-in/complete`) {
        return {
          status: 200,
          body: {
            issuer: PROVIDER.issuer,
            subject: 'sub-1',
            claims: { iss: PROVIDER.issuer, email: 'pat@acme.test' },
            mapped: { email: 'pat@acme.test', emailVerified: true, firstName: 'Pat', lastName: 'Smith' },
            domainMatches: true,
          },
        };
      }
      return undefined;
    });
    goTo('/admin/sso');
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Test sign-in' }));
    await waitFor(() => expect(popup.location.href).toBe('https://acme.okta.com/authorize?x'));
    expect(await screen.findByText('Complete the sign-in in the popup window…')).toBeTruthy();
    // Another origin, or the wrong state: ignored.
    const own = window.location.origin;
    const data = { type: SSO_TEST_MESSAGE, state: 'st-1', code: 'c0de' };
    window.dispatchEvent(
      new MessageEvent('message', { origin: 'https://evil.example', data, source: popup as never }),
    );
    window.dispatchEvent(
      new MessageEvent('message', { origin: own, data: { ...data, state: 'other' }, source: popup as never }),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(calls.some((c) => c.url.pathname.endsWith('/complete'))).toBe(false);
    window.dispatchEvent(new MessageEvent('message', { origin: own, data, source: popup as never }));
    const region = await screen.findByRole('region', { name: 'Test sign-in result' });
    expect(within(region).getByText("The address is in your organisation's domains.")).toBeTruthy();
    expect(within(region).getAllByText('pat@acme.test').length).toBeGreaterThan(0);
    expect(calls.find((c) => c.url.pathname.endsWith('/complete'))!.body).toEqual({
      state: 'st-1',
      code: 'c0de',
    });
  });
});

describe('the Test sign-in callback page (the popup)', () => {
  it("posts the provider's answer to its opener, to our own origin only, and closes", async () => {
    const postMessage = vi.fn();
    const close = vi.spyOn(window, 'close').mockImplementation(() => undefined);
    Object.defineProperty(window, 'opener', { value: { postMessage }, configurable: true });
    mockFetch(() => undefined);
    goTo('/admin/sso/test-callback?code=c0de&state=st-1');
    render(<Router />);
    await screen.findByText('The test sign-in is complete. You can close this window.');
    expect(postMessage).toHaveBeenCalledWith(
      { type: SSO_TEST_MESSAGE, state: 'st-1', code: 'c0de' },
      window.location.origin,
    );
    expect(close).toHaveBeenCalled();
    Object.defineProperty(window, 'opener', { value: null, configurable: true });
  });

  it('outside the admin application, or without a provider answer, it posts nothing', async () => {
    const postMessage = vi.fn();
    Object.defineProperty(window, 'opener', { value: { postMessage }, configurable: true });
    mockFetch(() => undefined);
    setConfig(defaultConfig('platform'));
    goTo('/admin/sso/test-callback?code=c0de&state=st-1');
    render(<Router />);
    await screen.findByText(/Open the test sign-in from the Single sign-on page/);
    expect(postMessage).not.toHaveBeenCalled();
    Object.defineProperty(window, 'opener', { value: null, configurable: true });
  });
});

describe('the Single sign-on section with SAML', () => {
  const SAML_PROVIDER = {
    protocol: 'saml',
    provider: 'acme',
    idpEntityId: 'https://idp.acme.example/metadata',
    ssoUrl: 'https://idp.acme.example/sso',
    metadataUrl: 'https://idp.acme.example/metadata',
    certificates: [
      {
        fingerprint: 'AA:BB:CC',
        subject: 'CN=old',
        notBefore: '2020-01-01T00:00:00.000Z',
        notAfter: '2021-01-01T00:00:00.000Z',
      },
      {
        fingerprint: 'DD:EE:FF',
        subject: 'CN=next',
        notBefore: '2026-01-01T00:00:00.000Z',
        notAfter: '2046-01-01T00:00:00.000Z',
      },
    ],
    fetchedAt: '2026-11-20T00:00:00.000Z',
    refreshError: 'http_status',
    jit: true,
    enforce: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-02T00:00:00.000Z',
  };

  it('choosing SAML shows our service provider to register and saves a metadata URL', async () => {
    let stored: unknown = null;
    const { calls } = signedIn(({ url, method, body }) => {
      if (url.pathname !== base) return undefined;
      if (method === 'PUT') stored = { ...SAML_PROVIDER, ...(body as object), refreshError: null };
      return { status: 200, body: { provider: stored, redirectUris: REDIRECTS, serviceProvider: SP } };
    });
    goTo('/admin/sso');
    render(<Router />);
    fireEvent.click(await screen.findByLabelText('SAML 2.0'));
    const sp = screen.getByRole('region', { name: /Our service provider/ });
    expect(within(sp).getByTestId('sso-sp-entity-id').textContent).toBe(SP.entityId);
    expect(within(sp).getByTestId('sso-sp-acs').textContent).toBe(SP.acsUrl);
    expect(within(sp).getByRole('link', { name: 'Download our SAML metadata' }).getAttribute('href')).toBe(
      SP.metadataUrl,
    );
    expect(screen.queryByTestId('sso-redirect-sign-in')).toBeNull();
    expect(screen.getByRole('heading', { name: 'ADFS' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Save provider' }));
    expect(await screen.findByText('Enter the metadata URL.')).toBeTruthy();
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    fireEvent.change(screen.getByLabelText('Metadata URL'), {
      target: { value: 'https://idp.acme.example/metadata' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Save provider' }));
    expect(await screen.findByText(/Provider saved/)).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({
      protocol: 'saml',
      metadataUrl: 'https://idp.acme.example/metadata',
      jit: true,
      enforce: false,
    });
    const current = await screen.findByRole('region', { name: 'Current provider' });
    expect(
      within(current).getByText('From https://idp.acme.example/metadata, fetched again daily'),
    ).toBeTruthy();
    // Saved as SAML: the form stays on SAML.
    expect((screen.getByLabelText('SAML 2.0') as HTMLInputElement).checked).toBe(true);
  });

  it('pasted metadata is checked before it is sent', async () => {
    const { calls } = signedIn(({ url, method }) => {
      if (url.pathname !== base) return undefined;
      if (method === 'PUT')
        return {
          status: 400,
          body: {
            errorCode: 'SAML_METADATA_INVALID',
            message: 'The SAML metadata is refused: the identity provider publishes no signing certificate.',
          },
        };
      return { status: 200, body: { provider: null, redirectUris: REDIRECTS, serviceProvider: SP } };
    });
    goTo('/admin/sso');
    render(<Router />);
    fireEvent.click(await screen.findByLabelText('SAML 2.0'));
    fireEvent.click(screen.getByLabelText('Paste the metadata XML'));
    const xml = screen.getByLabelText('Metadata XML');
    fireEvent.change(xml, { target: { value: 'entityID=x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save provider' }));
    expect(await screen.findByText(/This is not XML/)).toBeTruthy();
    expect(xml.getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    fireEvent.change(xml, { target: { value: '<md:EntityDescriptor/>' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save provider' }));
    expect((await screen.findByRole('alert')).textContent).toContain('publishes no signing certificate');
    expect(calls.find((c) => c.method === 'PUT')!.body).toMatchObject({
      metadataXml: '<md:EntityDescriptor/>',
    });
  });

  it('checks metadata before it is saved: Test connection on the form, nothing stored', async () => {
    const { calls } = signedIn(({ url }) => {
      if (url.pathname === base)
        return { status: 200, body: { provider: null, redirectUris: REDIRECTS, serviceProvider: SP } };
      if (url.pathname === `${base}/test-connection`) {
        return {
          status: 200,
          body: {
            ok: false,
            checks: [{ check: 'metadata', ok: false, reason: 'dtd', value: null }],
          },
        };
      }
      return undefined;
    });
    goTo('/admin/sso');
    render(<Router />);
    fireEvent.click(await screen.findByLabelText('SAML 2.0'));
    fireEvent.click(screen.getByLabelText('Paste the metadata XML'));
    fireEvent.change(screen.getByLabelText('Metadata XML'), { target: { value: '<!DOCTYPE x><x/>' } });
    fireEvent.click(screen.getByRole('button', { name: 'Check metadata before saving' }));
    const region = await screen.findByRole('region', { name: 'Connection' });
    expect(within(region).getByRole('listitem').textContent).toBe(
      'Failed: Metadata read (the metadata has a document type declaration (DTD), which is not accepted)',
    );
    expect(calls.find((c) => c.url.pathname === `${base}/test-connection`)!.body).toEqual({
      protocol: 'saml',
      metadataXml: '<!DOCTYPE x><x/>',
    });
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
  });

  it('a SAML provider: its facts, certificate fingerprints and expiry, the refresh failure, no Test sign-in', async () => {
    signedIn(({ url }) => {
      if (url.pathname === base)
        return {
          status: 200,
          body: { provider: SAML_PROVIDER, redirectUris: REDIRECTS, serviceProvider: SP },
        };
      if (url.pathname === `${base}/test-connection`) {
        return {
          status: 200,
          body: {
            ok: false,
            checks: [
              { check: 'metadata', ok: true, reason: null, value: SAML_PROVIDER.metadataUrl },
              { check: 'entity_id', ok: true, reason: null, value: SAML_PROVIDER.idpEntityId },
              { check: 'signing_certificate', ok: true, reason: null, value: '2' },
              {
                check: 'certificate_expiry',
                ok: false,
                reason: 'expired',
                value: '2021-01-01T00:00:00.000Z',
              },
              { check: 'sso_url', ok: true, reason: null, value: SAML_PROVIDER.ssoUrl },
            ],
          },
        };
      }
      return undefined;
    });
    goTo('/admin/sso');
    render(<Router />);
    const current = await screen.findByRole('region', { name: 'Current provider' });
    expect(within(current).getByText('SAML 2.0')).toBeTruthy();
    expect(within(current).getByText(SAML_PROVIDER.idpEntityId)).toBeTruthy();
    expect(within(current).getByRole('alert').textContent).toContain('the previous metadata is still used');
    const table = within(current).getByRole('table', { name: 'Signing certificates' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => within(r).getAllByRole('cell')[0]!.textContent)).toEqual(['AA:BB:CC', 'DD:EE:FF']);
    expect(rows[0]!.textContent).toContain('Expired');
    expect(rows[1]!.textContent).toContain('Valid');
    expect(screen.queryByRole('button', { name: 'Test sign-in' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    const region = await screen.findByRole('region', { name: 'Connection' });
    const items = within(region)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(items[2]).toBe('Passed: Signing certificate published (2 certificate(s))');
    expect(items[3]).toBe(
      'Failed: Certificates valid now (a certificate has expired. Found: 2021-01-01T00:00:00.000Z)',
    );
  });
});
