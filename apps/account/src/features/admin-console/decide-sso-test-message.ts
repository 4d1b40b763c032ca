// Test sign-in's popup and its opener (the Single sign-on section). Pure. The callback page (our own
// origin) posts what the provider sent to the opener, addressed to our origin only (or on a
// same-origin BroadcastChannel when the popup lost its opener); the opener takes a message only
// from our origin, from the popup it opened or that channel, and with the state it started.

export const SSO_TEST_MESSAGE = 'acme:sso-test-callback';
/** The same-origin channel used when the popup lost its opener (the provider's COOP). */
export const SSO_TEST_CHANNEL = 'acme-sso-test-sign-in';

export interface SsoTestMessage {
  type: typeof SSO_TEST_MESSAGE;
  state: string;
  code?: string;
  error?: string;
}

/** What the callback page posts, from its query; null when the query is not a provider's answer. */
export function selectSsoTestMessage(search: {
  state?: string;
  code?: string;
  error?: string;
}): SsoTestMessage | null {
  if (!search.state) return null;
  if (search.code) return { type: SSO_TEST_MESSAGE, state: search.state, code: search.code };
  if (search.error) return { type: SSO_TEST_MESSAGE, state: search.state, error: search.error };
  return null;
}

export type SsoTestMessageDecision =
  { type: 'ignore' } | { type: 'complete'; body: { state: string; code?: string; error?: string } };

export function decideSsoTestMessage(input: {
  origin: string;
  ownOrigin: string;
  fromPopup: boolean;
  data: unknown;
  expectedState: string | null;
}): SsoTestMessageDecision {
  if (input.origin !== input.ownOrigin || !input.fromPopup || input.expectedState === null) {
    return { type: 'ignore' };
  }
  const data = input.data as Partial<SsoTestMessage> | null;
  if (typeof data !== 'object' || data === null || data.type !== SSO_TEST_MESSAGE) return { type: 'ignore' };
  if (data.state !== input.expectedState) return { type: 'ignore' };
  if (typeof data.code === 'string')
    return { type: 'complete', body: { state: data.state, code: data.code } };
  if (typeof data.error === 'string')
    return { type: 'complete', body: { state: data.state, error: data.error } };
  return { type: 'ignore' };
}
