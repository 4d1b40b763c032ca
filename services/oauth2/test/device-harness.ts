import { expect } from 'vitest';
import { adminJson, CookieJar, DEFAULT_EXT, location, navigate, type TestServer } from './harness.ts';

/** The device authorization grant (RFC 8628) as the CLI, the browser and the user service drive it. */

export const DEVICE_CLIENT = 'research-cli';
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export async function deviceAuthorization(
  server: TestServer,
  options: { ip?: string; clientId?: string; scope?: string } = {},
) {
  const res = await fetch(`${server.publicUrl}/oauth2/device/auth`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.ip ? { 'x-forwarded-for': options.ip } : {}),
    },
    body: new URLSearchParams({
      client_id: options.clientId ?? DEVICE_CLIENT,
      scope: options.scope ?? 'openid offline_access',
    }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

export async function pollToken(server: TestServer, deviceCode: string, clientId = DEVICE_CLIENT) {
  const res = await fetch(`${server.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: DEVICE_GRANT,
      device_code: deviceCode,
      client_id: clientId,
    }).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The browser opens the verification endpoint: 302 to the app with a device challenge. */
export async function openVerification(server: TestServer, jar: CookieJar, ip?: string) {
  const res = await navigate(jar, `${server.publicUrl}/oauth2/device/verify`, {
    headers: ip ? { 'x-forwarded-for': ip } : {},
  });
  expect(res.status).toBe(302);
  const page = location(res);
  return { page, challenge: page.searchParams.get('device_challenge')! };
}

export async function acceptUserCode(server: TestServer, challenge: string, userCode: string) {
  return adminJson(
    server,
    'PUT',
    `/admin/oauth2/auth/requests/device/accept?device_challenge=${encodeURIComponent(challenge)}`,
    { user_code: userCode },
  );
}

function hiddenInputs(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)) {
    out[m[1]!] = m[2]!;
  }
  return out;
}

/** Follows `redirect_to` (the verifier) and the library's auto-posted form; returns the next redirect. */
export async function followVerifier(server: TestServer, jar: CookieJar, redirectTo: string) {
  const page = await navigate(jar, redirectTo);
  expect(page.status).toBe(200);
  const inputs = hiddenInputs(await page.text());
  const res = await navigate(jar, `${server.publicUrl}/oauth2/device/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(inputs).toString(),
  });
  return { res, inputs };
}

/**
 * The whole browser side: verification → accept → login (admin accept) → consent shown on the
 * device page → consent accept or reject → the app's device page.
 */
export async function approveDevice(
  server: TestServer,
  userCode: string,
  options: { jar?: CookieJar; subject?: string; ext?: Record<string, unknown>; deny?: boolean } = {},
) {
  const jar = options.jar ?? new CookieJar();
  const { challenge } = await openVerification(server, jar);
  const accepted = await acceptUserCode(server, challenge, userCode);
  expect(accepted.status).toBe(200);
  const { res } = await followVerifier(server, jar, accepted.body.redirect_to as string);
  let next = location(res);
  const loginChallenge = next.searchParams.get('login_challenge');
  if (loginChallenge) {
    const login = await adminJson(
      server,
      'PUT',
      `/admin/oauth2/auth/requests/login/accept?login_challenge=${loginChallenge}`,
      {
        subject: options.subject ?? 'identity-1',
        remember: true,
        remember_for: 86400,
        amr: ['password', 'totp'],
      },
    );
    expect(login.status).toBe(200);
    next = location(await navigate(jar, login.body.redirect_to as string));
  }
  const consentChallenge = next.searchParams.get('consent_challenge');
  expect(next.pathname).toBe('/account/device');
  expect(consentChallenge).toBeTruthy();
  const consent = await adminJson(
    server,
    'GET',
    `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
  );
  const decision = options.deny
    ? await adminJson(
        server,
        'PUT',
        `/admin/oauth2/auth/requests/consent/reject?consent_challenge=${consentChallenge}`,
        {
          error: 'access_denied',
          error_description: 'The person denied the device.',
        },
      )
    : await adminJson(
        server,
        'PUT',
        `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
        {
          grant_scope: consent.body.requested_scope,
          session: { access_token: options.ext ?? DEFAULT_EXT, id_token: { email: 'ada@acme.test' } },
        },
      );
  expect(decision.status).toBe(200);
  const done = location(await navigate(jar, decision.body.redirect_to as string));
  return { done, consent: consent.body, jar, loginChallenge };
}
