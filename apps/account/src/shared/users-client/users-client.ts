import { getConfig } from '../config/env.ts';
import type { JsonRequestInit } from '../errors/http-error.ts';
import { requestJson as plainRequestJson } from '../errors/http-error.ts';
import { tokenFetch } from '../oauth2/token-lifecycle.ts';

// The user service, errors `{errorCode, message}`. Every call goes through the token module: once
// the app holds a token, the call carries it as a bearer header (renewed when due, one retry on 401).

const withToken = tokenFetch(() => getConfig());

function requestJson<T>(url: string, init: JsonRequestInit = {}): Promise<T> {
  return plainRequestJson<T>(url, { ...init, fetchImpl: withToken });
}

export interface LoginConfig {
  email: string;
  sso: boolean;
  provider: string | null;
  m365: boolean;
  /** The organisation has MAGIC (where its Microsoft 365 people sign in). */
  magic: boolean;
  /** The address's organisation has self sign-up open (issue 25). */
  selfSignUp: boolean;
}

export async function getLoginConfig(usersUrl: string, emailAddress: string): Promise<LoginConfig> {
  const url = new URL('/login/config', usersUrl);
  url.searchParams.set('emailAddress', emailAddress);
  const body = await requestJson<Partial<LoginConfig>>(url.toString());
  return {
    email: typeof body.email === 'string' ? body.email : emailAddress,
    sso: body.sso === true,
    provider: typeof body.provider === 'string' && body.provider ? body.provider : null,
    m365: body.m365 === true,
    magic: body.magic === true,
    selfSignUp: body.selfSignUp === true,
  };
}

export function postConsent(
  usersUrl: string,
  input: { consentChallenge: string; identitySessionId: string; decision?: 'allow' | 'deny' },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/login/consent', usersUrl).toString(), {
    method: 'POST',
    body: input,
    credentials: 'include',
  });
}

/** Device sign-in: the user code for the device page's challenge → where the browser goes next. */
export function postDeviceVerify(
  usersUrl: string,
  input: { deviceChallenge: string; userCode: string },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/login/device/verify', usersUrl).toString(), {
    method: 'POST',
    body: input,
    credentials: 'include',
  });
}

/** What the consent screen shows of an application that is not the platform's own. */
export interface ConsentScreenData {
  /** False: the platform's own application, or one already allowed these scopes (no screen). */
  needsConsent: boolean;
  client: {
    clientId: string;
    name: string;
    logoUri: string | null;
    clientUri: string | null;
    policyUri: string | null;
    tosUri: string | null;
  };
  /** The organisation that registered it; null: the operator. */
  registeredBy: { organisation: string | null };
  requestedScope: string[];
  organisation: { name: string };
}

export function getConsentScreen(usersUrl: string, consentChallenge: string): Promise<ConsentScreenData> {
  const url = new URL('/login/consent/request', usersUrl);
  url.searchParams.set('consentChallenge', consentChallenge);
  return requestJson(url.toString(), { credentials: 'include' });
}

export interface DeviceConsent {
  clientId: string;
  clientName: string;
  requestedScope: string[];
  /** `m365`: the person signed in with Microsoft 365 and approves with that token. */
  authenticationMode?: 'ory' | 'm365';
}

/**
 * Device sign-in of a Microsoft 365 person: the device client's login request, then its consent,
 * accepted with the person's token from `/m365/login` (sent as the bearer by the token module).
 * `application` is this application's client id: the consent comes back to its device page.
 */
export function postM365DeviceLogin(
  usersUrl: string,
  input: { loginChallenge: string; application: string },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/m365/device/login', usersUrl).toString(), { method: 'POST', body: input });
}

export function postM365DeviceConsent(
  usersUrl: string,
  input: { consentChallenge: string },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/m365/device/consent', usersUrl).toString(), { method: 'POST', body: input });
}

export function getDeviceConsent(usersUrl: string, consentChallenge: string): Promise<DeviceConsent> {
  const url = new URL('/login/device/consent', usersUrl);
  url.searchParams.set('consentChallenge', consentChallenge);
  return requestJson(url.toString(), { credentials: 'include' });
}

/**
 * Device sign-in: Deny, by the person who could approve: the identity session's id (a Microsoft 365
 * person's token goes as the bearer instead).
 */
export function postDeviceDeny(
  usersUrl: string,
  input: { consentChallenge: string; identitySessionId?: string },
): Promise<{ redirectTo: string }> {
  return requestJson(new URL('/login/device/deny', usersUrl).toString(), {
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

// Invitations, terms and the source-code host.

export type InvitationState = 'pending' | 'accepted' | 'expired' | 'revoked';

/** The public state of an invitation link (404 = unknown link). */
export async function getInvitationStatus(usersUrl: string, flow: string): Promise<InvitationState> {
  const url = new URL('/invitations/status', usersUrl);
  url.searchParams.set('flow', flow);
  const body = await requestJson<{ state?: unknown }>(url.toString());
  const state = body.state;
  return state === 'pending' || state === 'accepted' || state === 'expired' || state === 'revoked'
    ? state
    : 'expired';
}

export interface TermsDocuments {
  terms: { version: string; url: string };
  privacy: { version: string; url: string };
}

export function getCurrentTerms(usersUrl: string): Promise<TermsDocuments> {
  return requestJson(new URL('/terms/current', usersUrl).toString());
}

export function acceptTerms(usersUrl: string, documents: TermsDocuments): Promise<{ tosAccepted: boolean }> {
  return requestJson(new URL('/terms/accept', usersUrl).toString(), {
    method: 'POST',
    credentials: 'include',
    body: {
      documents: [
        { document: 'terms', version: documents.terms.version },
        { document: 'privacy', version: documents.privacy.version },
      ],
    },
  });
}

export function initialiseGitAuth(usersUrl: string, flow: string): Promise<{ authenticationUrl: string }> {
  return requestJson(new URL('/git-auth/initialise', usersUrl).toString(), {
    method: 'POST',
    credentials: 'include',
    body: { flow },
  });
}

export interface ConnectedApp {
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: string;
}

/**
 * Who the user service is asked as: the identity session cookie, or (a Microsoft 365 person, who has
 * none) the access token, and then no cookie at all.
 */
function asHolder(bearer: string | undefined) {
  return bearer
    ? { credentials: 'omit' as const, headers: { Authorization: `Bearer ${bearer}` } }
    : { credentials: 'include' as const };
}

/** The signed-in person's connected applications (their OAuth2 grants). */
export async function listConnectedApps(usersUrl: string, bearer?: string): Promise<ConnectedApp[]> {
  const body = await requestJson<{ apps?: ConnectedApp[] }>(
    new URL('/me/connected-apps', usersUrl).toString(),
    asHolder(bearer),
  );
  return Array.isArray(body.apps) ? body.apps : [];
}

/** Revokes the signed-in person's grants to one application. */
export async function revokeConnectedApp(usersUrl: string, clientId: string, bearer?: string): Promise<void> {
  await requestJson(new URL(`/me/connected-apps/${encodeURIComponent(clientId)}`, usersUrl).toString(), {
    method: 'DELETE',
    ...asHolder(bearer),
  });
}

export interface MyAccount {
  name: string;
  email: string;
  organisation: { name: string };
}

/** Who the signed-in person is, for the account page of a person without an identity session. */
export function getMyAccount(usersUrl: string, bearer?: string): Promise<MyAccount> {
  return requestJson(new URL('/me/account', usersUrl).toString(), asHolder(bearer));
}

/** Unlinks the caller's source-code-host account (needs a recent sign-in: REAUTHENTICATION_REQUIRED). */
export function unlinkGit(usersUrl: string): Promise<{ connected: false; removed: boolean }> {
  return requestJson(new URL('/git-auth', usersUrl).toString(), { method: 'DELETE', credentials: 'include' });
}

export function completeGitAuth(
  usersUrl: string,
  input: { code: string; state?: string },
): Promise<{ connected: boolean; login?: string }> {
  return requestJson(new URL('/git-auth/complete', usersUrl).toString(), {
    method: 'POST',
    credentials: 'include',
    body: input.state ? { code: input.code, state: input.state } : { code: input.code },
  });
}
