import { currentLocale } from '../../i18n/locale.ts';
import { requestJson } from '../errors/http-error.ts';
import type {
  LoginFlow,
  LogoutFlow,
  RecoveryFlow,
  RegistrationFlow,
  Session,
  SettingsFlow,
  VerificationFlow,
} from './types.ts';

// Kratos public API, called as JSON with the browser's cookies.

/**
 * Every call sends the browser's cookies and the active locale, so the service's flow messages come
 * in the language of the screen that shows them.
 */
function withCredentials() {
  return { credentials: 'include' as const, headers: { 'Accept-Language': currentLocale() } };
}

function url(base: string, path: string, query: Record<string, string | undefined> = {}): string {
  const u = new URL(path, base);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') u.searchParams.set(k, v);
  return u.toString();
}

/** The self-service flows; each has `/browser` (start), `/flows?id=` (read) and a POST to submit. */
type FlowKind = 'login' | 'recovery' | 'settings' | 'registration' | 'verification';

function startFlow<T>(
  base: string,
  kind: FlowKind,
  query: Record<string, string | undefined> = {},
): Promise<T> {
  return requestJson(url(base, `/self-service/${kind}/browser`, query), withCredentials());
}

function readFlow<T>(base: string, kind: FlowKind, id: string): Promise<T> {
  return requestJson(url(base, `/self-service/${kind}/flows`, { id }), withCredentials());
}

function submitFlow<T>(base: string, kind: FlowKind, flowId: string, body: unknown): Promise<T> {
  return requestJson(url(base, `/self-service/${kind}`, { flow: flowId }), {
    ...withCredentials(),
    method: 'POST',
    body,
  });
}

/**
 * The current session. `fresh` after a change this page made (or asked another service to make): the
 * identity service then reads the database instead of its cache, which another instance's change
 * reaches only a moment after it is committed.
 */
export function whoami(base: string, { fresh = false }: { fresh?: boolean } = {}): Promise<Session> {
  const init = withCredentials();
  const headers = fresh ? { ...init.headers, 'Cache-Control': 'no-cache' } : init.headers;
  return requestJson(url(base, '/sessions/whoami'), { ...init, headers });
}

export function createLoginFlow(
  base: string,
  query: { login_challenge?: string; refresh?: boolean; aal?: 'aal1' | 'aal2'; return_to?: string },
): Promise<LoginFlow> {
  return startFlow(base, 'login', {
    login_challenge: query.login_challenge,
    refresh: query.refresh ? 'true' : undefined,
    aal: query.aal,
    return_to: query.return_to,
  });
}

export function getLoginFlow(base: string, id: string): Promise<LoginFlow> {
  return readFlow(base, 'login', id);
}

export type LoginBody =
  | { method: 'password'; identifier: string; password: string; csrf_token: string }
  | { method: 'totp'; totp_code: string; csrf_token: string }
  | { method: 'lookup_secret'; lookup_secret: string; csrf_token: string }
  | { method: 'oidc'; provider: string; csrf_token: string }
  | { method: 'passkey'; passkey_login: string; csrf_token: string }
  | { method: 'webauthn'; webauthn_login: string; csrf_token: string };

export function submitLogin(base: string, flowId: string, body: LoginBody): Promise<{ session?: Session }> {
  return submitFlow(base, 'login', flowId, body);
}

export function createLogoutFlow(base: string, returnTo?: string): Promise<LogoutFlow> {
  return requestJson(url(base, '/self-service/logout/browser', { return_to: returnTo }), withCredentials());
}

export function getSelfServiceError(base: string, id: string): Promise<{ id: string; error?: unknown }> {
  return requestJson(url(base, '/self-service/errors', { id }), withCredentials());
}

export function createRecoveryFlow(base: string): Promise<RecoveryFlow> {
  return startFlow(base, 'recovery');
}

export function getRecoveryFlow(base: string, id: string): Promise<RecoveryFlow> {
  return readFlow(base, 'recovery', id);
}

export function submitRecovery(
  base: string,
  flowId: string,
  body: { method: 'code'; email?: string; code?: string; csrf_token: string },
): Promise<RecoveryFlow> {
  return submitFlow(base, 'recovery', flowId, body);
}

/** A settings flow; `returnTo` (the account page) is where a re-authentication comes back to. */
export function createSettingsFlow(base: string, returnTo?: string): Promise<SettingsFlow> {
  return startFlow(base, 'settings', { return_to: returnTo });
}

/** The signed-in person's other active sessions (Kratos `GET /sessions`). */
export function listSessions(base: string): Promise<Session[]> {
  return requestJson(url(base, '/sessions'), withCredentials());
}

/** Ends one other session of the signed-in person (`DELETE /sessions/{id}`). */
export async function revokeSession(base: string, id: string): Promise<void> {
  await requestJson(url(base, `/sessions/${encodeURIComponent(id)}`), {
    ...withCredentials(),
    method: 'DELETE',
  });
}

/** Ends every other session of the signed-in person (`DELETE /sessions`). */
export function revokeOtherSessions(base: string): Promise<{ count: number }> {
  return requestJson(url(base, '/sessions'), { ...withCredentials(), method: 'DELETE' });
}

export function getSettingsFlow(base: string, id: string): Promise<SettingsFlow> {
  return readFlow(base, 'settings', id);
}

export type SettingsBody =
  | { method: 'password'; password: string; csrf_token: string }
  | { method: 'totp'; totp_code: string; csrf_token: string }
  | { method: 'totp'; totp_unlink: true; csrf_token: string }
  | { method: 'profile'; traits: unknown; csrf_token: string }
  | {
      method: 'lookup_secret';
      lookup_secret_regenerate?: true;
      lookup_secret_confirm?: true;
      lookup_secret_disable?: true;
      csrf_token: string;
    }
  | {
      method: 'passkey';
      passkey_settings_register?: string;
      passkey_remove?: string;
      passkey_rename?: string;
      passkey_display_name?: string;
      csrf_token: string;
    }
  | {
      method: 'webauthn';
      webauthn_register?: string;
      webauthn_remove?: string;
      webauthn_rename?: string;
      webauthn_register_displayname?: string;
      csrf_token: string;
    };

export function submitSettings(base: string, flowId: string, body: SettingsBody): Promise<SettingsFlow> {
  return submitFlow(base, 'settings', flowId, body);
}

export function createRegistrationFlow(base: string): Promise<RegistrationFlow> {
  return startFlow(base, 'registration');
}

export function getRegistrationFlow(base: string, id: string): Promise<RegistrationFlow> {
  return readFlow(base, 'registration', id);
}

/** Kratos's password registration; the answer (200) carries the new identity and its session. */
export function submitRegistration(
  base: string,
  flowId: string,
  body: {
    method: 'password';
    traits: { email: string; name: { first: string; last: string } };
    password: string;
    csrf_token: string;
  },
): Promise<unknown> {
  return submitFlow(base, 'registration', flowId, body);
}

export function createVerificationFlow(base: string): Promise<VerificationFlow> {
  return startFlow(base, 'verification');
}

export function getVerificationFlow(base: string, id: string): Promise<VerificationFlow> {
  return readFlow(base, 'verification', id);
}

export function submitVerification(
  base: string,
  flowId: string,
  body: { method: 'code'; code?: string; email?: string; csrf_token?: string },
): Promise<VerificationFlow> {
  return submitFlow(base, 'verification', flowId, body);
}
