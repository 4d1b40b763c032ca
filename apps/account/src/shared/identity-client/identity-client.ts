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

const withCredentials = { credentials: 'include' as const };

function url(base: string, path: string, query: Record<string, string | undefined> = {}): string {
  const u = new URL(path, base);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') u.searchParams.set(k, v);
  return u.toString();
}

export function whoami(base: string): Promise<Session> {
  return requestJson(url(base, '/sessions/whoami'), withCredentials);
}

export function createLoginFlow(
  base: string,
  query: { login_challenge?: string; refresh?: boolean; aal?: 'aal1' | 'aal2'; return_to?: string },
): Promise<LoginFlow> {
  return requestJson(
    url(base, '/self-service/login/browser', {
      login_challenge: query.login_challenge,
      refresh: query.refresh ? 'true' : undefined,
      aal: query.aal,
      return_to: query.return_to,
    }),
    withCredentials,
  );
}

export function getLoginFlow(base: string, id: string): Promise<LoginFlow> {
  return requestJson(url(base, '/self-service/login/flows', { id }), withCredentials);
}

export type LoginBody =
  | { method: 'password'; identifier: string; password: string; csrf_token: string }
  | { method: 'totp'; totp_code: string; csrf_token: string }
  | { method: 'lookup_secret'; lookup_secret: string; csrf_token: string }
  | { method: 'oidc'; provider: string; csrf_token: string }
  | { method: 'passkey'; passkey_login: string; csrf_token: string }
  | { method: 'webauthn'; webauthn_login: string; csrf_token: string };

export function submitLogin(base: string, flowId: string, body: LoginBody): Promise<{ session?: Session }> {
  return requestJson(url(base, '/self-service/login', { flow: flowId }), {
    ...withCredentials,
    method: 'POST',
    body,
  });
}

export function createLogoutFlow(base: string, returnTo?: string): Promise<LogoutFlow> {
  return requestJson(url(base, '/self-service/logout/browser', { return_to: returnTo }), withCredentials);
}

export function getSelfServiceError(base: string, id: string): Promise<{ id: string; error?: unknown }> {
  return requestJson(url(base, '/self-service/errors', { id }), withCredentials);
}

export function createRecoveryFlow(base: string): Promise<RecoveryFlow> {
  return requestJson(url(base, '/self-service/recovery/browser'), withCredentials);
}

export function getRecoveryFlow(base: string, id: string): Promise<RecoveryFlow> {
  return requestJson(url(base, '/self-service/recovery/flows', { id }), withCredentials);
}

export function submitRecovery(
  base: string,
  flowId: string,
  body: { method: 'code'; email?: string; code?: string; csrf_token: string },
): Promise<RecoveryFlow> {
  return requestJson(url(base, '/self-service/recovery', { flow: flowId }), {
    ...withCredentials,
    method: 'POST',
    body,
  });
}

/** A settings flow; `returnTo` (the account page) is where a re-authentication comes back to. */
export function createSettingsFlow(base: string, returnTo?: string): Promise<SettingsFlow> {
  return requestJson(url(base, '/self-service/settings/browser', { return_to: returnTo }), withCredentials);
}

/** The signed-in person's other active sessions (Kratos `GET /sessions`). */
export function listSessions(base: string): Promise<Session[]> {
  return requestJson(url(base, '/sessions'), withCredentials);
}

/** Ends one other session of the signed-in person (`DELETE /sessions/{id}`). */
export async function revokeSession(base: string, id: string): Promise<void> {
  await requestJson(url(base, `/sessions/${encodeURIComponent(id)}`), {
    ...withCredentials,
    method: 'DELETE',
  });
}

/** Ends every other session of the signed-in person (`DELETE /sessions`). */
export function revokeOtherSessions(base: string): Promise<{ count: number }> {
  return requestJson(url(base, '/sessions'), { ...withCredentials, method: 'DELETE' });
}

export function getSettingsFlow(base: string, id: string): Promise<SettingsFlow> {
  return requestJson(url(base, '/self-service/settings/flows', { id }), withCredentials);
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
  return requestJson(url(base, '/self-service/settings', { flow: flowId }), {
    ...withCredentials,
    method: 'POST',
    body,
  });
}

export function createRegistrationFlow(base: string): Promise<RegistrationFlow> {
  return requestJson(url(base, '/self-service/registration/browser'), withCredentials);
}

export function getRegistrationFlow(base: string, id: string): Promise<RegistrationFlow> {
  return requestJson(url(base, '/self-service/registration/flows', { id }), withCredentials);
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
  return requestJson(url(base, '/self-service/registration', { flow: flowId }), {
    ...withCredentials,
    method: 'POST',
    body,
  });
}

export function createVerificationFlow(base: string): Promise<VerificationFlow> {
  return requestJson(url(base, '/self-service/verification/browser'), withCredentials);
}

export function getVerificationFlow(base: string, id: string): Promise<VerificationFlow> {
  return requestJson(url(base, '/self-service/verification/flows', { id }), withCredentials);
}

export function submitVerification(
  base: string,
  flowId: string,
  body: { method: 'code'; code?: string; email?: string; csrf_token?: string },
): Promise<VerificationFlow> {
  return requestJson(url(base, '/self-service/verification', { flow: flowId }), {
    ...withCredentials,
    method: 'POST',
    body,
  });
}
