import { requestJson } from '../errors/http-error.ts';

// The user service (SPEC §7), errors `{errorCode, message}`.

export interface LoginConfig {
  email: string;
  sso: boolean;
  provider: string | null;
  m365: boolean;
}

function headers(accessToken?: string | null): Record<string, string> {
  return accessToken ? { Authorization: `Bearer ${accessToken}` } : {};
}

export async function getLoginConfig(
  usersUrl: string,
  emailAddress: string,
  accessToken?: string | null,
): Promise<LoginConfig> {
  const url = new URL('/login/config', usersUrl);
  url.searchParams.set('emailAddress', emailAddress);
  const body = await requestJson<Partial<LoginConfig>>(url.toString(), { headers: headers(accessToken) });
  return {
    email: typeof body.email === 'string' ? body.email : emailAddress,
    sso: body.sso === true,
    provider: typeof body.provider === 'string' && body.provider ? body.provider : null,
    m365: body.m365 === true,
  };
}

export function postConsent(
  usersUrl: string,
  input: { consentChallenge: string; identitySessionId: string },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/login/consent', usersUrl).toString(), {
    method: 'POST',
    body: input,
    credentials: 'include',
  });
}

export function postLogout(
  usersUrl: string,
  input: { logoutChallenge: string },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/login/logout', usersUrl).toString(), {
    method: 'POST',
    body: input,
    credentials: 'include',
  });
}
