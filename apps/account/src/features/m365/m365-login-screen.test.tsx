// @vitest-environment jsdom
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { useMemo, useState } from 'react';
import type { Mock } from 'vitest';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { registry } from '../../shared/storage/registry.ts';
import { read, write } from '../../shared/storage/storage.ts';
import { toastStore } from '../../shared/errors/error-store.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { resetScreenBetweenTests } from '../../testing/screen.ts';
import { M365LoginScreen } from './m365-login-screen.tsx';
import type { M365Driver } from './m365-driver.ts';
import type { M365LoginSearch } from './use-m365-login.ts';
import { useM365Login } from './use-m365-login.ts';

// The screen with its hook; Microsoft (MSAL or teams-js) is replaced by a driver double, the user
// service by a fetch double. The real libraries run in the browser journeys (e2e/m365.e2e.ts).

function jwt(payload: object): string {
  const b64 = (o: object) => btoa(JSON.stringify(o)).replace(/=+$/, '');
  return `${b64({ alg: 'none' })}.${b64(payload)}.sig`;
}
const OUR_TOKEN = jwt({ ext: { user: { authenticationMode: 'm365' } } });

interface Microsoft {
  signIn: Mock<M365Driver['signIn']>;
  acquireTokens: Mock<M365Driver['acquireTokens']>;
  teamsToken: Mock<M365Driver['teamsToken']>;
  openExternal: Mock<M365Driver['openExternal']>;
}

function microsoft(): Microsoft {
  return {
    signIn: vi.fn<M365Driver['signIn']>(async () => undefined),
    acquireTokens: vi.fn<M365Driver['acquireTokens']>(async () => ({
      identityToken: 'ms-id',
      directoryToken: 'ms-graph',
    })),
    teamsToken: vi.fn<M365Driver['teamsToken']>(async () => 'teams-sso'),
    openExternal: vi.fn<M365Driver['openExternal']>(async () => undefined),
  };
}

function Harness({
  search,
  ms,
  isTeams = false,
}: {
  search: M365LoginSearch;
  ms: Microsoft;
  isTeams?: boolean;
}) {
  const [hasAccount, setHasAccount] = useState(false);
  const driver = useMemo<M365Driver>(
    () => ({
      isTeams,
      interaction: 'none',
      username: hasAccount ? 'megan@contoso.test' : null,
      hasAccount,
      signIn: async (kind, options) => {
        await ms.signIn(kind, options);
        setHasAccount(true);
      },
      acquireTokens: () => ms.acquireTokens(),
      teamsToken: () => ms.teamsToken(),
      openExternal: (url) => ms.openExternal(url),
    }),
    [hasAccount, isTeams, ms],
  );
  return <M365LoginScreen {...useM365Login(search, driver)} />;
}

function answerLogin(status: number, body: unknown) {
  return mockFetch(({ url }) => {
    if (url.pathname === '/m365/login') return { status, body };
    if (url.pathname === '/terms/current') {
      return {
        status: 200,
        body: {
          terms: { version: '1', url: 'https://acme.test/terms' },
          privacy: { version: '1', url: 'https://acme.test/privacy' },
        },
      };
    }
    return undefined;
  });
}

resetScreenBetweenTests('magic');
beforeEach(() => {
  window.history.replaceState(null, '', '/account/m365-login');
  toastStore.clear();
});

describe('m365 login in the browser', () => {
  it('login: Welcome, Continue signs in by popup, then the backend login stores the token and opens the initial page', async () => {
    const ms = microsoft();
    const { fn, calls } = answerLogin(200, { accessToken: OUR_TOKEN, expiresIn: 3600 });
    render(<Harness search={{}} ms={ms} />);
    expect(screen.getByRole('heading', { name: 'Welcome' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Customer Terms of Service' })).toBeTruthy();
    // The privacy notice is linked from the text and from the footer.
    expect(screen.getAllByRole('link', { name: 'Privacy Notice' })).toHaveLength(2);
    expect(screen.getByRole('link', { name: 'Contact support' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );
    expect(ms.signIn).not.toHaveBeenCalled();

    const before = Date.now();
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(ms.signIn).toHaveBeenCalledWith('popup', undefined);
    expect(calls.map((c) => c.url.pathname)).toEqual(['/m365/login']);
    expect(calls[0]?.body).toEqual({ graphAccessToken: 'ms-graph' });
    const headers = (fn.mock.calls[0]?.[1] as RequestInit).headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer ms-id');
    const stored = read(registry.oauth2Token);
    expect(stored?.accessToken).toBe(OUR_TOKEN);
    expect(stored?.expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(document.cookie).toContain('oauth2_token=');
    expect(localStorage.getItem('oauth2_token')).toBeNull();
  });

  it.each([
    [
      'UserNotSubscribedException',
      'Welcome, not connected',
      "Only an Owner or Contributor of your organisation's cloud subscription can subscribe.",
    ],
    [
      'UserNotGrantedAccessException',
      'Admin consent required',
      'An administrator of your Microsoft 365 organisation must grant MAGIC access to your directory before you can sign in.',
    ],
    [
      'UnauthorisedUserException',
      'Access not granted yet',
      "Your organisation uses MAGIC, but your account has not been given access. We have passed your request to your organisation's administrators.",
    ],
  ])('%s shows its mode', async (errorCode, heading, text) => {
    answerLogin(403, { errorCode, message: 'refused' });
    render(<Harness search={{}} ms={microsoft()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByRole('heading', { name: heading });
    expect(screen.getByText(text)).toBeTruthy();
    expect(read(registry.oauth2Token)).toBeNull();
    expect(window.location.pathname).toBe('/account/m365-login');
  });

  it('a device sign-in that sent the person here: the backend login returns to the device page with its login request', async () => {
    write(registry.loginChallenge, 'device-login-1');
    write(registry.deviceLoginChallenge, 'device-login-1');
    answerLogin(200, { accessToken: OUR_TOKEN, expiresIn: 3600 });
    render(<Harness search={{}} ms={microsoft()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(window.location.pathname).toBe('/account/device'));
    expect(window.location.search).toBe('?login_challenge=device-login-1');
  });

  it('subscription-required links the offer set-up page from the answer', async () => {
    answerLogin(403, {
      errorCode: 'UserNotSubscribedException',
      message: 'not subscribed',
      subscriptionSetupUrl: 'https://marketplace.example/offer',
    });
    render(<Harness search={{}} ms={microsoft()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    const link = await screen.findByRole('link', { name: 'Set up a subscription' });
    expect(link.getAttribute('href')).toBe('https://marketplace.example/offer');
    expect(screen.getByRole('tooltip').textContent).toContain('Owner or Contributor');
    expect(screen.getByRole('button', { name: 'Who can subscribe?' }).getAttribute('aria-describedby')).toBe(
      'owner-tooltip',
    );
  });

  it('any other error shows its message and goes back to login', async () => {
    answerLogin(500, { errorCode: 'Boom', message: 'Graph is unavailable' });
    render(<Harness search={{}} ms={microsoft()} />);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.message)).toEqual(['Graph is unavailable']),
    );
    expect(screen.getByRole('heading', { name: 'Welcome' })).toBeTruthy();
  });

  it('a cancelled popup stays on login without an error', async () => {
    const ms = microsoft();
    ms.signIn.mockRejectedValue(Object.assign(new Error('user_cancelled'), { errorCode: 'user_cancelled' }));
    const { calls } = answerLogin(200, {});
    render(<Harness search={{}} ms={ms} />);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(ms.signIn).toHaveBeenCalled());
    expect(screen.getByRole('heading', { name: 'Welcome' })).toBeTruthy();
    expect(toastStore.getSnapshot()).toEqual([]);
    expect(calls).toHaveLength(0);
  });

  it('autoContinue starts a redirect sign-in by itself, without autoContinue in the return address', async () => {
    const ms = microsoft();
    ms.signIn.mockImplementation(() => new Promise(() => undefined));
    window.history.replaceState(null, '', '/account/m365-login?autoContinue=true');
    answerLogin(200, {});
    render(<Harness search={{ autoContinue: 'true' }} ms={ms} />);
    await waitFor(() => expect(ms.signIn).toHaveBeenCalledTimes(1));
    expect(ms.signIn.mock.calls[0]?.[0]).toBe('redirect');
    expect(ms.signIn.mock.calls[0]?.[1]).toEqual({
      redirectStartPage: 'http://localhost:3000/account/m365-login',
    });
  });

  it('an m365 token of ours already stored: authenticated, Continue to MAGIC', async () => {
    write(registry.oauth2Token, {
      accessToken: OUR_TOKEN,
      refreshToken: null,
      expiresAt: Date.now() + 60_000,
    });
    answerLogin(200, {});
    render(<Harness search={{}} ms={microsoft()} />);
    expect(screen.getByRole('heading', { name: 'You are signed in' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Continue to MAGIC' }));
    expect(window.location.pathname).toBe('/research');
  });
});

describe('m365 login inside Teams (isTeams=1)', () => {
  it('signs in with the SDK token on entry; the token goes to local storage, not the cookie', async () => {
    const ms = microsoft();
    const { calls } = answerLogin(200, { accessToken: OUR_TOKEN, expiresIn: 600 });
    render(<Harness search={{ isTeams: '1' }} ms={ms} isTeams />);
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(ms.teamsToken).toHaveBeenCalledTimes(1);
    expect(ms.signIn).not.toHaveBeenCalled();
    expect(calls[0]?.body).toEqual({});
    expect(read(registry.isTeams)).toBe(true);
    expect(JSON.parse(localStorage.getItem('oauth2_token') ?? '{}').accessToken).toBe(OUR_TOKEN);
    expect(document.cookie).not.toContain('oauth2_token=');
  });

  it('a getAuthToken failure shows the error and a retry that asks again', async () => {
    const ms = microsoft();
    ms.teamsToken.mockRejectedValueOnce(
      new Error('Teams could not provide a sign-in token: CancelledByUser'),
    );
    answerLogin(200, { accessToken: OUR_TOKEN, expiresIn: 600 });
    render(<Harness search={{ isTeams: '1' }} ms={ms} isTeams />);
    await screen.findByText('Teams could not provide a sign-in token: CancelledByUser');
    expect(screen.getByRole('heading', { name: 'Microsoft sign-in failed' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(ms.teamsToken).toHaveBeenCalledTimes(2);
  });

  it('subscription-required, Teams variant: the set-up link opens through the SDK', async () => {
    const ms = microsoft();
    answerLogin(403, {
      errorCode: 'UserNotSubscribedException',
      subscriptionSetupUrl: 'https://marketplace.example/o',
    });
    render(<Harness search={{ isTeams: '1' }} ms={ms} isTeams />);
    await screen.findByRole('heading', { name: 'Welcome, not connected' });
    expect(screen.getByText(/then open it again here in Teams/)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Set up a subscription' }));
    expect(ms.openExternal).toHaveBeenCalledWith('https://marketplace.example/o');
  });
});

describe('Final Step (activate-subscription)', () => {
  it('shows "Signing up as"; Continue is disabled until both boxes are ticked; activation, then backend login', async () => {
    const ms = microsoft();
    let activations = 0;
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/terms/current') {
        return {
          status: 200,
          body: {
            terms: { version: '1', url: 'https://acme.test/terms' },
            privacy: { version: '1', url: 'https://acme.test/privacy' },
          },
        };
      }
      if (url.pathname === '/m365/marketplace/activate') {
        activations += 1;
        return activations === 1
          ? {
              status: 400,
              body: { errorCode: 'InvalidMarketplaceToken', message: 'The purchase token has expired' },
            }
          : { status: 200, body: {} };
      }
      if (url.pathname === '/m365/login')
        return { status: 200, body: { accessToken: OUR_TOKEN, expiresIn: 60 } };
      return undefined;
    });
    write(registry.m365RedirectAttempted, true);
    render(<Harness search={{ token: 'mp-token' }} ms={ms} />);
    await screen.findByRole('heading', { name: 'Final Step' });
    const continueButton = () => screen.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(continueButton().disabled).toBe(true);
    const [terms, privacy] = screen.getAllByRole('checkbox');
    fireEvent.click(terms!);
    expect(continueButton().disabled).toBe(true);
    fireEvent.click(privacy!);
    expect(continueButton().disabled).toBe(false);

    // No Microsoft account yet: Continue signs in first; the activation flag then starts activation.
    fireEvent.click(continueButton());
    await screen.findByText('megan@contoso.test');
    expect(screen.getByText('Signing up as')).toBeTruthy();
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.message)).toEqual(['The purchase token has expired']),
    );
    // The error cleared the in-progress state and the flag: Continue works again.
    expect(read(registry.m365ActivationFlag)).toBeNull();
    await waitFor(() => expect(continueButton().disabled).toBe(false));
    await act(async () => fireEvent.click(continueButton()));
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    const activate = calls.filter((c) => c.url.pathname === '/m365/marketplace/activate');
    expect(activate[1]?.body).toEqual({ token: 'mp-token', graphAccessToken: 'ms-graph' });
    expect(calls.at(-1)?.url.pathname).toBe('/m365/login');
  });

  it('a purchase for an organisation already subscribed shows that view', async () => {
    mockFetch(({ url }) => {
      if (url.pathname === '/terms/current') {
        return {
          status: 200,
          body: { terms: { version: '1', url: 'https://t' }, privacy: { version: '1', url: 'https://p' } },
        };
      }
      if (url.pathname === '/m365/marketplace/activate') {
        return { status: 409, body: { errorCode: 'OrganisationAlreadySubscribedException', message: 'x' } };
      }
      return undefined;
    });
    write(registry.m365RedirectAttempted, true);
    render(<Harness search={{ token: 'mp-token' }} ms={microsoft()} />);
    await screen.findByRole('heading', { name: 'Final Step' });
    for (const box of screen.getAllByRole('checkbox')) fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByRole('heading', { name: 'Welcome, organisation already subscribed' });
    expect(screen.getAllByRole('link', { name: 'Contact support' }).length).toBeGreaterThan(0);
  });

  const documents = ({ url }: { url: URL }) =>
    url.pathname === '/terms/current'
      ? {
          status: 200,
          body: { terms: { version: '1', url: 'https://t' }, privacy: { version: '1', url: 'https://p' } },
        }
      : undefined;
  const tickAndContinue = async () => {
    await screen.findByRole('heading', { name: 'Final Step' });
    for (const box of screen.getAllByRole('checkbox')) fireEvent.click(box);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Continue' })));
  };

  it('Continue without an account signs in silently; after a failed silent sign-in (muted) a popup, and popups from then on', async () => {
    const ms = microsoft();
    ms.signIn.mockImplementation(async (kind) => {
      if (kind === 'silent')
        throw Object.assign(new Error('login_required'), { errorCode: 'login_required' });
      throw Object.assign(new Error('cancelled'), { errorCode: 'user_cancelled' });
    });
    mockFetch(documents);
    write(registry.m365RedirectAttempted, true);
    render(<Harness search={{ token: 'mp-token' }} ms={ms} />);
    await tickAndContinue();
    await waitFor(() => expect(ms.signIn.mock.calls.map((c) => c[0])).toEqual(['silent', 'popup']));
    // The silent failure was muted (no toast); the cancelled popup shows none either.
    expect(toastStore.getSnapshot()).toEqual([]);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Continue' })));
    await waitFor(() => expect(ms.signIn.mock.calls.map((c) => c[0])).toEqual(['silent', 'popup', 'popup']));
  });

  it('after a failed token fetch, Continue fetches the tokens again and activates (no reload)', async () => {
    const ms = microsoft();
    ms.acquireTokens.mockRejectedValueOnce(new Error('AADSTS50058: token fetch failed'));
    const { calls } = mockFetch((c) => {
      if (c.url.pathname === '/m365/marketplace/activate') return { status: 200, body: {} };
      if (c.url.pathname === '/m365/login')
        return { status: 200, body: { accessToken: OUR_TOKEN, expiresIn: 60 } };
      return documents(c);
    });
    write(registry.m365RedirectAttempted, true);
    render(<Harness search={{ token: 'mp-token' }} ms={ms} />);
    await tickAndContinue();
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.message)).toEqual(['AADSTS50058: token fetch failed']),
    );
    expect(calls.some((c) => c.url.pathname === '/m365/marketplace/activate')).toBe(false);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Continue' })));
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(ms.acquireTokens).toHaveBeenCalledTimes(2);
  });

  it('the marketplace token (m365-token) is kept across the forced redirect sign-in and cleared by the activation', async () => {
    const ms = microsoft();
    ms.signIn.mockImplementation(() => new Promise(() => undefined));
    answerLogin(200, {});
    const first = render(<Harness search={{ token: 'mp-token' }} ms={ms} />);
    await waitFor(() => expect(ms.signIn).toHaveBeenCalledWith('redirect', expect.anything()));
    expect(read(registry.m365Token)).toBe('mp-token');
    first.unmount();
    // Back from Microsoft without ?token=: the Final Step still knows the purchase.
    const back = microsoft();
    const { calls } = mockFetch(({ url }) => {
      if (url.pathname === '/m365/marketplace/activate') return { status: 200, body: {} };
      if (url.pathname === '/m365/login')
        return { status: 200, body: { accessToken: OUR_TOKEN, expiresIn: 60 } };
      if (url.pathname === '/terms/current') {
        return {
          status: 200,
          body: { terms: { version: '1', url: 'https://t' }, privacy: { version: '1', url: 'https://p' } },
        };
      }
      return undefined;
    });
    render(<Harness search={{}} ms={back} />);
    await screen.findByRole('heading', { name: 'Final Step' });
    for (const box of screen.getAllByRole('checkbox')) fireEvent.click(box);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Continue' })));
    await waitFor(() => expect(window.location.pathname).toBe('/research'));
    expect(calls.find((c) => c.url.pathname === '/m365/marketplace/activate')?.body).toMatchObject({
      token: 'mp-token',
    });
    expect(read(registry.m365Token)).toBeNull();
  });

  it('a colleague who is not the purchaser is told so in words, and stays on the Final Step', async () => {
    mockFetch(({ url }) => {
      if (url.pathname === '/terms/current') {
        return {
          status: 200,
          body: { terms: { version: '1', url: 'https://t' }, privacy: { version: '1', url: 'https://p' } },
        };
      }
      if (url.pathname === '/m365/marketplace/activate') {
        return { status: 403, body: { errorCode: 'MarketplaceNotPurchaserException', message: 'x' } };
      }
      return undefined;
    });
    write(registry.m365RedirectAttempted, true);
    render(<Harness search={{ token: 'mp-token' }} ms={microsoft()} />);
    await screen.findByRole('heading', { name: 'Final Step' });
    for (const box of screen.getAllByRole('checkbox')) fireEvent.click(box);
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() =>
      expect(toastStore.getSnapshot().map((t) => t.message)).toEqual([
        'Only the person who bought this subscription in the Azure Marketplace can activate it. Ask them to open the link from their purchase, or sign in with the account that bought it.',
      ]),
    );
    expect(screen.getByRole('heading', { name: 'Final Step' })).toBeTruthy();
  });

  it('without an identity token the Final Step forces one redirect sign-in', async () => {
    const ms = microsoft();
    ms.signIn.mockImplementation(() => new Promise(() => undefined));
    answerLogin(200, {});
    render(<Harness search={{ token: 'mp-token' }} ms={ms} />);
    await waitFor(() => expect(ms.signIn).toHaveBeenCalledWith('redirect', expect.anything()));
    expect(read(registry.m365RedirectAttempted)).toBe(true);
  });
});
