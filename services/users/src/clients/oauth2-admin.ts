import { z } from 'zod';
import { AppError } from '../http/errors.ts';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { requestJson as sendJson, upstreamError, type JsonRequest } from './http-json.ts';

const SERVICE = 'authorization server';

const requestClientSchema = z.object({
  client_id: z.string(),
  client_name: z.string().optional(),
  grant_types: z.array(z.string()).nullish(),
  /** Hydra's flag: the platform's own applications, whose consent the platform gives itself. */
  skip_consent: z.boolean().optional(),
  /** What the consent screen shows of any other application (client-provided, shown as text). */
  logo_uri: z.string().nullish(),
  client_uri: z.string().nullish(),
  policy_uri: z.string().nullish(),
  tos_uri: z.string().nullish(),
  /** Who registered it: an organisation's id, or anything else for the operator. */
  owner: z.string().nullish(),
});

const consentRequestSchema = z.object({
  challenge: z.string().optional(),
  /** Hydra's `skip`: the person already consented to this client for every scope it asks now. */
  skip: z.boolean().optional(),
  subject: z.string(),
  client: requestClientSchema.optional(),
  requested_scope: z.array(z.string()).nullish(),
  requested_access_token_audience: z.array(z.string()).nullish(),
  /** The login accept's `context`, carried to the consent request (Hydra). */
  context: z.record(z.string(), z.unknown()).nullish(),
});

type ConsentRequest = z.infer<typeof consentRequestSchema>;

const loginRequestSchema = z.object({ client: requestClientSchema.optional() });

type LoginRequest = z.infer<typeof loginRequestSchema>;

interface AcceptLoginBody {
  subject: string;
  remember: boolean;
  amr: string[];
  context: Record<string, unknown>;
}

const redirectSchema = z.object({ redirect_to: z.string().min(1) });

export interface ConsentSession {
  access_token: Record<string, unknown>;
  id_token: Record<string, unknown>;
}

interface AcceptConsentBody {
  grant_scope: string[];
  grant_access_token_audience: string[];
  remember: boolean;
  session: ConsentSession;
}

/** An application a person granted access, as the account page lists it. */
interface ConnectedApp {
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: string;
}

const consentSessionsSchema = z.array(
  z.object({
    consent_request: z.object({
      client: z.object({ client_id: z.string(), client_name: z.string().nullish() }),
    }),
    grant_scope: z.array(z.string()).nullish(),
    handled_at: z.string().nullish(),
  }),
);

/** The result of reading a consent request: pending, or already handled (Hydra's 410). */
type ConsentLookup = { kind: 'pending'; request: ConsentRequest } | { kind: 'handled'; redirectTo: string };

/** The authorization server's (Hydra-compatible) admin API, as far as the user service uses it. */
export interface OAuth2AdminClient {
  /** A pending login request (Hydra's 410 for an answered one: LOGIN_REQUEST_NOT_FOUND). */
  getLoginRequest(challenge: string): Promise<LoginRequest>;
  acceptLoginRequest(challenge: string, body: AcceptLoginBody): Promise<string>;
  getConsentRequest(challenge: string): Promise<ConsentLookup>;
  /** `refuseAnswered`: an answered request (Hydra's 410) is CONSENT_REQUEST_NOT_FOUND, not its redirect. */
  acceptConsentRequest(
    challenge: string,
    body: AcceptConsentBody,
    options?: { refuseAnswered?: boolean },
  ): Promise<string>;
  acceptLogoutRequest(challenge: string): Promise<string>;
  rejectConsentRequest(
    challenge: string,
    body: { error: string; error_description: string },
  ): Promise<string>;
  /** Hydra's device user-code accept: `PUT …/device/accept?device_challenge=` `{user_code}`. */
  acceptDeviceRequest(challenge: string, userCode: string): Promise<string>;
  /** The applications a subject granted access (Hydra's consent sessions). */
  listConsentSessions(subject: string): Promise<ConnectedApp[]>;
  /**
   * Revokes a subject's grants to one application, or to every application when `clientId` is not
   * given: each grant ends with every token of it (refresh, and already issued access tokens at
   * `/userinfo` and introspection, on every instance of the authorization server).
   */
  revokeConsentSessions(subject: string, clientId?: string): Promise<void>;
  /** An access token for a user verified through Microsoft 365 (`/admin/oauth2/federated-tokens`). */
  issueFederatedToken(body: {
    subject: string;
    client_id: string;
    session: ConsentSession;
  }): Promise<{ accessToken: string; expiresIn: number }>;
}

const federatedTokenSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
});

export function createOAuth2AdminClient(
  baseUrl: string,
  timeoutMs: number,
  adminKey?: string,
): OAuth2AdminClient {
  const auth = adminAuthHeaders(adminKey);
  const requestJson = (service: string, url: string, req: JsonRequest) =>
    sendJson(service, url, { ...req, headers: { ...auth, ...req.headers } });
  const requests = `${baseUrl}/admin/oauth2/auth/requests`;

  const redirectOf = (body: unknown): string => {
    const parsed = redirectSchema.safeParse(body);
    if (!parsed.success) throw upstreamError(SERVICE, 'answered without redirect_to');
    return parsed.data.redirect_to;
  };

  return {
    async getLoginRequest(challenge) {
      const url = `${requests}/login?login_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, { method: 'GET', timeoutMs });
      if (res.status === 404 || res.status === 410 || res.status === 400) throw loginNotFound();
      const parsed = loginRequestSchema.safeParse(res.body);
      if (res.status !== 200 || !parsed.success) {
        throw upstreamError(SERVICE, `answered ${res.status} for a login request`);
      }
      return parsed.data;
    },

    async acceptLoginRequest(challenge, body) {
      const url = `${requests}/login/accept?login_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, { method: 'PUT', body, timeoutMs });
      if (res.status === 200) return redirectOf(res.body);
      // Answered already (410, a replay) or gone: the same refusal; never a second accept.
      if (res.status === 404 || res.status === 410 || res.status === 400) throw loginNotFound();
      throw upstreamError(SERVICE, `answered ${res.status} when accepting a login request`);
    },

    async getConsentRequest(challenge) {
      const url = `${requests}/consent?consent_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, { method: 'GET', timeoutMs });
      if (res.status === 410) return { kind: 'handled', redirectTo: redirectOf(res.body) };
      if (res.status === 404 || res.status === 400) throw consentNotFound();
      if (res.status !== 200) throw upstreamError(SERVICE, `answered ${res.status} for a consent request`);
      const parsed = consentRequestSchema.safeParse(res.body);
      if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected consent request shape');
      return { kind: 'pending', request: parsed.data };
    },

    async acceptConsentRequest(challenge, body, options) {
      const url = `${requests}/consent/accept?consent_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, { method: 'PUT', body, timeoutMs });
      if (res.status === 410 && options?.refuseAnswered) throw consentNotFound();
      if (res.status === 200 || res.status === 410) return redirectOf(res.body);
      if (res.status === 404 || res.status === 400) throw consentNotFound();
      throw upstreamError(SERVICE, `answered ${res.status} when accepting a consent request`);
    },

    async rejectConsentRequest(challenge, body) {
      const url = `${requests}/consent/reject?consent_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, { method: 'PUT', body, timeoutMs });
      if (res.status === 200 || res.status === 410) return redirectOf(res.body);
      if (res.status === 404 || res.status === 400) throw consentNotFound();
      throw upstreamError(SERVICE, `answered ${res.status} when rejecting a consent request`);
    },

    async acceptDeviceRequest(challenge, userCode) {
      const url = `${requests}/device/accept?device_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, {
        method: 'PUT',
        body: { user_code: userCode },
        timeoutMs,
      });
      if (res.status === 200) return redirectOf(res.body);
      const error = (res.body as { error?: unknown } | null)?.error;
      if (res.status === 429) {
        throw new AppError('RATE_LIMITED', 'Too many codes were tried. Wait a few minutes and try again.');
      }
      if (res.status === 404 || res.status === 410) {
        throw new AppError(
          'DEVICE_REQUEST_NOT_FOUND',
          'This page has expired. Open it again to enter the code.',
        );
      }
      if (res.status === 400 && error === 'expired_token') {
        throw new AppError('DEVICE_CODE_EXPIRED', 'This code has expired.');
      }
      if (res.status === 400 && error === 'invalid_grant') {
        throw new AppError('DEVICE_CODE_USED', 'This code has already been used.');
      }
      if (res.status === 400) throw new AppError('DEVICE_CODE_INVALID', 'This code is not valid.');
      throw upstreamError(SERVICE, `answered ${res.status} when accepting a device code`);
    },

    async listConsentSessions(subject) {
      const url = `${baseUrl}/admin/oauth2/auth/sessions/consent?subject=${encodeURIComponent(subject)}`;
      const res = await requestJson(SERVICE, url, { method: 'GET', timeoutMs });
      if (res.status !== 200) throw upstreamError(SERVICE, `answered ${res.status} for consent sessions`);
      const parsed = consentSessionsSchema.safeParse(res.body);
      if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected consent sessions shape');
      // One entry per application (each browser that signed in holds its own grant): the union of
      // the scopes and the latest grant time; revoking an application ends all of its grants.
      const byClient = new Map<string, ConnectedApp>();
      for (const s of parsed.data) {
        const clientId = s.consent_request.client.client_id;
        const seen = byClient.get(clientId);
        const grantedAt = s.handled_at ?? '';
        byClient.set(clientId, {
          clientId,
          // A client without a name (the platform's own, seeded ones) is listed by its id.
          name: s.consent_request.client.client_name || clientId,
          scopes: [...new Set([...(seen?.scopes ?? []), ...(s.grant_scope ?? [])])],
          grantedAt: seen && seen.grantedAt > grantedAt ? seen.grantedAt : grantedAt,
        });
      }
      return [...byClient.values()];
    },

    async revokeConsentSessions(subject, clientId) {
      const which = clientId === undefined ? 'all=true' : `client=${encodeURIComponent(clientId)}`;
      const url = `${baseUrl}/admin/oauth2/auth/sessions/consent?subject=${encodeURIComponent(subject)}&${which}`;
      const res = await requestJson(SERVICE, url, { method: 'DELETE', timeoutMs });
      if (res.status !== 204 && res.status !== 200)
        throw upstreamError(SERVICE, `answered ${res.status} when revoking consent sessions`);
    },

    async acceptLogoutRequest(challenge) {
      const url = `${requests}/logout/accept?logout_challenge=${encodeURIComponent(challenge)}`;
      const res = await requestJson(SERVICE, url, { method: 'PUT', timeoutMs });
      if (res.status === 200 || res.status === 410) return redirectOf(res.body);
      if (res.status === 404 || res.status === 400) {
        throw new AppError('LOGOUT_REQUEST_NOT_FOUND', 'The logout request does not exist or has expired.');
      }
      throw upstreamError(SERVICE, `answered ${res.status} when accepting a logout request`);
    },

    async issueFederatedToken(body) {
      const url = `${baseUrl}/admin/oauth2/federated-tokens`;
      const res = await requestJson(SERVICE, url, { method: 'POST', body, timeoutMs });
      const parsed = federatedTokenSchema.safeParse(res.body);
      if (res.status !== 200 || !parsed.success) {
        throw upstreamError(SERVICE, `answered ${res.status} when issuing a federated token`);
      }
      return { accessToken: parsed.data.access_token, expiresIn: parsed.data.expires_in };
    },
  };
}

function loginNotFound(): AppError {
  return new AppError(
    'LOGIN_REQUEST_NOT_FOUND',
    'The sign-in request does not exist, has expired or was already answered.',
  );
}

function consentNotFound(): AppError {
  return new AppError('CONSENT_REQUEST_NOT_FOUND', 'The consent request does not exist or has expired.');
}
