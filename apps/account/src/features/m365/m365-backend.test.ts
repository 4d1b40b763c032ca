// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { copy } from '../../copy.ts';
import { mockFetch } from '../../testing/fetch-mock.ts';
import { HttpClientError, RequiredError, postJson } from './http-client.ts';
import { backendLogin, classifyBackendLoginError, tokenFromBackendLogin } from './m365-backend.ts';
import { activationErrorMessage } from './m365-activation.ts';

afterEach(() => vi.unstubAllGlobals());

const usersUrl = 'http://localhost:4455';

describe('backendLogin: POST /m365/login', () => {
  it('sends the Microsoft token as the bearer and the Graph token in the body', async () => {
    const { fn, calls } = mockFetch(() => ({ status: 200, body: { accessToken: 'ours', expiresIn: 3600 } }));
    expect(await backendLogin(usersUrl, 'ms-id-token', 'graph-token')).toEqual({
      accessToken: 'ours',
      expiresIn: 3600,
    });
    expect(calls[0]?.method).toBe('POST');
    expect(calls[0]?.url.pathname).toBe('/m365/login');
    expect(calls[0]?.body).toEqual({ graphAccessToken: 'graph-token' });
    const headers = (fn.mock.calls[0]?.[1] as RequestInit).headers as Record<string, string>;
    expect(headers.Authorization).toBe('Bearer ms-id-token');
    expect(headers['Content-Type']).toBe('application/json');
  });

  it('Teams: no Graph token in the body', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: { accessToken: 'ours', expiresIn: 60 } }));
    await backendLogin(usersUrl, 'teams-token', null);
    expect(calls[0]?.body).toEqual({});
  });

  it('a missing bearer is the required-parameter error, and nothing is sent', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    await expect(backendLogin(usersUrl, null, 'g')).rejects.toThrow(
      new RequiredError('bearer', 'backendLogin'),
    );
    await expect(backendLogin(usersUrl, null, 'g')).rejects.toThrow(
      'Required parameter bearer was null or undefined when calling backendLogin.',
    );
    expect(calls).toHaveLength(0);
  });

  it('an answer without accessToken is refused', async () => {
    mockFetch(() => ({ status: 200, body: { expiresIn: 10 } }));
    await expect(backendLogin(usersUrl, 't', 'g')).rejects.toThrow('Invalid OAuth2 Token Response');
  });

  it('stores expiry = now + expiresIn × 1000 and no refresh token', () => {
    expect(tokenFromBackendLogin({ accessToken: 'a', expiresIn: 3600 }, 1_000)).toEqual({
      accessToken: 'a',
      refreshToken: null,
      expiresAt: 3_601_000,
    });
  });
});

describe('classifyBackendLoginError', () => {
  const answer = (status: number, body: unknown) =>
    new HttpClientError(status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST', `x`, status, body);
  it.each([
    [
      'UserNotSubscribedException → subscription-required, with the offer link',
      answer(403, {
        errorCode: 'UserNotSubscribedException',
        message: 'm',
        subscriptionSetupUrl: 'https://offer.example/x',
      }),
      { type: 'outcome', outcome: 'not-subscribed', subscriptionUrl: 'https://offer.example/x' },
    ],
    [
      'a link that is not http(s) is dropped',
      answer(403, { errorCode: 'UserNotSubscribedException', subscriptionSetupUrl: 'javascript:alert(1)' }),
      { type: 'outcome', outcome: 'not-subscribed', subscriptionUrl: null },
    ],
    [
      'UserNotGrantedAccessException → consent-required',
      answer(403, { errorCode: 'UserNotGrantedAccessException', message: 'm' }),
      { type: 'outcome', outcome: 'not-granted', subscriptionUrl: null },
    ],
    [
      'UnauthorisedUserException → unauthorised-user',
      answer(403, { errorCode: 'UnauthorisedUserException', message: 'm' }),
      { type: 'outcome', outcome: 'unauthorised', subscriptionUrl: null },
    ],
    [
      'ACCOUNT_INACTIVE (a deactivated account) shows our words',
      answer(403, { errorCode: 'ACCOUNT_INACTIVE', message: 'server words' }),
      {
        type: 'message',
        message: "Your account is deactivated. Please contact your organisation's administrator.",
      },
    ],
    [
      "NETWORK_NOT_TRUSTED (outside the organisation's trusted networks) shows our words",
      answer(403, { errorCode: 'NETWORK_NOT_TRUSTED', message: 'server words' }),
      { type: 'message', message: copy.errors.networkNotTrusted },
    ],
    [
      'another error shows its message',
      answer(401, { errorCode: 'InvalidTokenException', message: 'The token has expired' }),
      { type: 'message', message: 'The token has expired' },
    ],
    [
      'no message in the body: the client error text',
      new HttpClientError('ERR_BAD_RESPONSE', 'Request failed with status code 502', 502, null),
      { type: 'message', message: 'Request failed with status code 502' },
    ],
    ['nothing usable: Unknown error', { weird: true }, { type: 'message', message: 'Unknown error' }],
  ])('%s', (_name, error, expected) => {
    expect(classifyBackendLoginError(error)).toEqual(expected);
  });
});

describe('activationErrorMessage: what a refused activation shows', () => {
  const answer = (status: number, body: unknown) =>
    new HttpClientError('ERR_BAD_REQUEST', 'Request failed with status code ' + status, status, body);
  it.each([
    [
      'not the purchaser: our words',
      answer(403, { errorCode: 'MarketplaceNotPurchaserException', message: 'server words' }),
      'Only the person who bought this subscription in the Azure Marketplace can activate it. Ask them to open the link from their purchase, or sign in with the account that bought it.',
    ],
    [
      'suspended or cancelled at the marketplace: our words',
      answer(409, { errorCode: 'MarketplaceSubscriptionInactiveException', message: 'server words' }),
      'The Azure Marketplace reports this subscription as suspended or cancelled, so it cannot be activated. Reactivate it in the Azure portal or contact support.',
    ],
    [
      'another error: its message',
      answer(400, { errorCode: 'InvalidMarketplaceTokenException', message: 'The token has expired' }),
      'The token has expired',
    ],
    ['nothing usable: Unknown error', { weird: true }, 'Unknown error'],
  ])('%s', (_name, error, expected) => {
    expect(activationErrorMessage(error)).toBe(expected);
  });
});

describe('postJson: the generic HTTP client errors', () => {
  it('bad or response status', async () => {
    mockFetch(() => ({ status: 400, body: { errorCode: 'X', message: 'bad' } }));
    const error = await postJson('http://localhost/x', { body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpClientError);
    expect(error).toMatchObject({
      code: 'ERR_BAD_REQUEST',
      message: 'Request failed with status code 400',
      status: 400,
      body: { errorCode: 'X', message: 'bad' },
    });
    mockFetch(() => ({ status: 503 }));
    await expect(postJson('http://localhost/x', { body: {} })).rejects.toMatchObject({
      code: 'ERR_BAD_RESPONSE',
      message: 'Request failed with status code 503',
    });
  });

  it('network error', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(postJson('http://localhost/x', { body: {} })).rejects.toMatchObject({
      code: 'ERR_NETWORK',
      message: 'Network Error',
    });
  });

  const hanging = () =>
    vi.fn(
      (_url: string, init: RequestInit) =>
        new Promise<Response>((_resolve, reject) =>
          init.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
        ),
    );

  it('timeout exceeded', async () => {
    vi.stubGlobal('fetch', hanging());
    await expect(postJson('http://localhost/x', { body: {}, timeoutMs: 5 })).rejects.toMatchObject({
      code: 'ETIMEDOUT',
      message: 'timeout of 5ms exceeded',
    });
  });

  it('canceled by the caller, before or during the request', async () => {
    vi.stubGlobal('fetch', hanging());
    const before = new AbortController();
    before.abort();
    await expect(postJson('http://localhost/x', { body: {}, signal: before.signal })).rejects.toMatchObject({
      code: 'ERR_CANCELED',
      message: 'canceled',
    });
    const during = new AbortController();
    const pending = postJson('http://localhost/x', { body: {}, signal: during.signal });
    during.abort();
    await expect(pending).rejects.toMatchObject({ code: 'ERR_CANCELED', message: 'canceled' });
  });

  it('request aborted by the browser', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.reject(new DOMException('gone', 'AbortError'))),
    );
    await expect(postJson('http://localhost/x', { body: {} })).rejects.toMatchObject({
      code: 'ECONNABORTED',
      message: 'Request aborted',
    });
  });

  it('unsupported protocol and bad option, before any request', async () => {
    const { calls } = mockFetch(() => ({ status: 200, body: {} }));
    await expect(postJson('ftp://localhost/x', { body: {} })).rejects.toMatchObject({
      code: 'ERR_UNSUPPORTED_PROTOCOL',
      message: 'Unsupported protocol ftp:',
    });
    await expect(postJson('http://localhost/x', { body: {}, timeoutMs: -1 })).rejects.toMatchObject({
      code: 'ERR_BAD_OPTION',
      message: 'option timeout must be a number ≥ 0',
    });
    expect(calls).toHaveLength(0);
  });
});
