import { randomBytes } from 'node:crypto';
import type { AdapterPayload, KoaContextWithOIDC } from 'oidc-provider';
import type { Middleware } from 'koa';
import { appUrls } from '../config.ts';
import { clientById, defaultClient, type OAuth2Context, type OAuth2Runtime } from '../context.ts';
import { OAuth2Error } from '../errors.ts';
import { clientView, epochTime } from './challenge.ts';

/**
 * Logout through the app (Hydra's logout challenge on oidc-provider's RP-initiated logout):
 *
 * 1. `GET /oauth2/sessions/logout` with a session → `logoutSource` stores a LogoutRequest under a
 *    new challenge (with the session's xsrf secret) → 303 `<app>/account/logout?logout_challenge=`.
 * 2. Admin `PUT …/logout/accept` → `{redirect_to: <issuer>/oauth2/sessions/logout?logout_verifier=}`.
 * 3. That GET answers a page whose nonce'd script posts `xsrf` + `logout=yes` to
 *    `/oauth2/sessions/logout/confirm`; the library ends the session and redirects to the
 *    post-logout URI (the client's login page by default).
 * Without a session, step 1 redirects straight to the post-logout URI.
 */

const REQUEST_MODEL = 'LogoutRequest';
const VERIFIER_MODEL = 'LogoutVerifier';
const ENDPOINT = '/oauth2/sessions/logout';

interface LogoutRequestRecord {
  subject: string;
  sid: string;
  clientId: string | null;
  xsrf: string;
  requestUrl: string;
  requestedAt: number;
  exp: number;
}

const newId = () => randomBytes(24).toString('base64url');
const asPayload = (value: object) => value as unknown as AdapterPayload;

export function logoutSource(c: OAuth2Context) {
  return async function source(ctx: KoaContextWithOIDC): Promise<void> {
    const session = ctx.oidc.session;
    if (!session?.accountId) throw new Error('logoutSource called without an account');
    const state = (session.state ?? {}) as Record<string, unknown>;
    // The client named by the request (client_id / id_token_hint), else the only client this
    // session signed in to, else the default application.
    const authorized = Object.keys(session.authorizations ?? {});
    const client =
      clientById(c.config, ctx.oidc.client?.clientId) ??
      (authorized.length === 1 ? clientById(c.config, authorized[0]) : undefined) ??
      defaultClient(c.config);
    if (!state.postLogoutRedirectUri) state.postLogoutRedirectUri = appUrls(client).postLogoutRedirectUri;

    const challenge = newId();
    const ttl = c.config.ttl.interaction;
    const now = epochTime();
    const record: LogoutRequestRecord = {
      subject: session.accountId,
      sid: session.uid,
      clientId: ctx.oidc.client?.clientId ?? (authorized.length === 1 ? client.client_id : null),
      xsrf: String(state.secret ?? ''),
      requestUrl: ctx.href,
      requestedAt: now,
      exp: now + ttl,
    };
    await c.adapters.get(REQUEST_MODEL).upsert(challenge, asPayload(record), ttl);

    ctx.status = 303;
    ctx.redirect(`${appUrls(client).logout}?logout_challenge=${encodeURIComponent(challenge)}`);
  };
}

/** The library's "signed out" page is never shown: go to the default app's login page. */
export function postLogoutSuccessSource(c: OAuth2Context) {
  return async function success(ctx: KoaContextWithOIDC): Promise<void> {
    const client = clientById(c.config, ctx.oidc.client?.clientId) ?? defaultClient(c.config);
    ctx.status = 303;
    ctx.redirect(appUrls(client).postLogoutRedirectUri);
  };
}

async function loadRequest(rt: OAuth2Runtime, challenge: string) {
  const record = await rt.adapters.get(REQUEST_MODEL).findRecord(challenge);
  if (!record) throw OAuth2Error.notFound('Unable to locate the logout request.');
  const request = record.payload as unknown as LogoutRequestRecord;
  if (record.consumedAt !== undefined) throw OAuth2Error.alreadyHandled(request.requestUrl);
  return request;
}

export async function getLogoutRequest(rt: OAuth2Runtime, challenge: string) {
  const request = await loadRequest(rt, challenge);
  return {
    challenge,
    subject: request.subject,
    sid: request.sid,
    request_url: request.requestUrl,
    rp_initiated: true,
    client: request.clientId ? await clientView(rt, request.clientId) : null,
    requested_at: new Date(request.requestedAt * 1000).toISOString(),
    expires_at: new Date(request.exp * 1000).toISOString(),
  };
}

export async function acceptLogoutRequest(rt: OAuth2Runtime, challenge: string) {
  const request = await loadRequest(rt, challenge);
  if (!(await rt.adapters.get(REQUEST_MODEL).consumeOnce(challenge))) {
    throw OAuth2Error.alreadyHandled(request.requestUrl);
  }
  const verifier = newId();
  const ttl = Math.max(1, request.exp - epochTime());
  await rt.adapters.get(VERIFIER_MODEL).upsert(verifier, asPayload({ challenge }), ttl);
  return { redirect_to: `${rt.config.issuer}${ENDPOINT}?logout_verifier=${encodeURIComponent(verifier)}` };
}

export async function rejectLogoutRequest(rt: OAuth2Runtime, challenge: string): Promise<void> {
  const request = await loadRequest(rt, challenge);
  if (!(await rt.adapters.get(REQUEST_MODEL).consumeOnce(challenge))) {
    throw OAuth2Error.alreadyHandled(request.requestUrl);
  }
}

function htmlEscape(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function autoSubmitPage(action: string, xsrf: string, nonce: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Signing out</title></head>
<body>
<form method="post" action="${htmlEscape(action)}">
<input type="hidden" name="xsrf" value="${htmlEscape(xsrf)}">
<input type="hidden" name="logout" value="yes">
<noscript><button type="submit">Continue signing out</button></noscript>
</form>
<script nonce="${nonce}">document.forms[0].submit();</script>
</body>
</html>`;
}

function jsonError(ctx: Parameters<Middleware>[0], status: number, error: string, description: string) {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}

/** Resolves where a session-less logout goes: a registered post-logout URI or the default app. */
async function sessionlessTarget(rt: OAuth2Runtime, query: Record<string, unknown>): Promise<string> {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  let clientId = str(query.client_id);
  const hint = str(query.id_token_hint);
  if (!clientId && hint) {
    try {
      const payload = JSON.parse(Buffer.from(hint.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
        aud?: unknown;
      };
      clientId = Array.isArray(payload.aud) ? str(payload.aud[0]) : str(payload.aud);
    } catch {
      clientId = undefined;
    }
  }
  const fallback = appUrls(clientById(rt.config, clientId) ?? defaultClient(rt.config)).postLogoutRedirectUri;
  // Any client's registered post-logout redirect URIs, matched exactly.
  const client = clientId ? await rt.clients.find(clientId) : undefined;
  const requested = str(query.post_logout_redirect_uri);
  if (!client || requested === undefined || !client.post_logout_redirect_uris.includes(requested))
    return fallback;
  const state = str(query.state);
  return state ? `${requested}?state=${encodeURIComponent(state)}` : requested;
}

/** Pre-middleware on `GET /oauth2/sessions/logout`: the verifier page and the session-less case. */
export function logoutEndpointMiddleware(rt: OAuth2Runtime): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== ENDPOINT || ctx.method !== 'GET') return next();
    const verifier = ctx.query.logout_verifier;
    if (verifier !== undefined) {
      const verifiers = rt.adapters.get(VERIFIER_MODEL);
      const record = typeof verifier === 'string' ? await verifiers.findRecord(verifier) : undefined;
      const challenge = (record?.payload as { challenge?: string } | undefined)?.challenge;
      const request = challenge ? await rt.adapters.get(REQUEST_MODEL).findRecord(challenge) : undefined;
      if (!record || !request || !(await verifiers.consumeOnce(verifier as string))) {
        return jsonError(
          ctx,
          400,
          'invalid_request',
          'The logout verifier is invalid, expired or was already used.',
        );
      }
      const { xsrf } = request.payload as unknown as LogoutRequestRecord;
      const nonce = randomBytes(16).toString('base64');
      ctx.status = 200;
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.set(
        'Content-Security-Policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'`,
      );
      ctx.body = autoSubmitPage(`${rt.config.issuer}${ENDPOINT}/confirm`, xsrf, nonce);
      return;
    }
    const session = await rt.provider.Session.get(ctx);
    if (session.accountId) return next();
    ctx.status = 303;
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(await sessionlessTarget(rt, ctx.query));
  };
}
