import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { z } from 'zod';
import { AppError } from '../http/errors.ts';
import { requestJson as sendJson, upstreamError, type JsonRequest } from './http-json.ts';

const SERVICE = 'authorization server';

const createdSchema = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) });

interface WebClientRequest {
  name: string;
  redirectUris: readonly string[];
  postLogoutRedirectUris: readonly string[];
  /** The organisation that owns it: the consent screen names it as who registered the app. */
  owner: string;
}

const refusalSchema = z.object({ error: z.string(), error_description: z.string().optional() });

/** The authorization server's (Hydra-compatible) admin client API, for API clients. */
export interface OAuth2ClientsAdmin {
  /** A client-credentials client whose tokens carry `ext`; the secret is answered only here. */
  createApiClient(
    name: string,
    ext: Record<string, unknown>,
  ): Promise<{ clientId: string; clientSecret: string }>;
  /**
   * An organisation's own web app: authorization code (+ refresh token), the redirect URIs matched
   * exactly, people see the consent screen. A redirect URI the server refuses is a 400
   * `INVALID_REQUEST` carrying its reason; nothing is created then.
   */
  createWebClient(app: WebClientRequest): Promise<{ clientId: string; clientSecret: string }>;
  /** Deletes the client; true when it existed. Its next token request fails. */
  deleteClient(clientId: string): Promise<boolean>;
}

export function createOAuth2ClientsAdmin(
  baseUrl: string,
  timeoutMs: number,
  adminKey?: string,
): OAuth2ClientsAdmin {
  const auth = adminAuthHeaders(adminKey);
  const requestJson = (service: string, url: string, req: JsonRequest) =>
    sendJson(service, url, { ...req, headers: { ...auth, ...req.headers } });
  async function create(body: Record<string, unknown>) {
    const res = await requestJson(SERVICE, `${baseUrl}/admin/clients`, { method: 'POST', body, timeoutMs });
    const refusal = refusalSchema.safeParse(res.body);
    if (res.status === 400 && refusal.success && refusal.data.error === 'invalid_redirect_uri') {
      throw new AppError(
        'INVALID_REQUEST',
        refusal.data.error_description ?? 'A redirect URI is not acceptable.',
        {},
        { field: 'redirectUris' },
      );
    }
    if (res.status !== 201) throw upstreamError(SERVICE, `answered ${res.status} when creating a client`);
    const parsed = createdSchema.safeParse(res.body);
    if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected client shape');
    return { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret };
  }
  return {
    createApiClient: (name, ext) =>
      create({
        client_name: name,
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        metadata: { ext },
      }),

    createWebClient: (app) =>
      create({
        client_name: app.name,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        redirect_uris: app.redirectUris,
        post_logout_redirect_uris: app.postLogoutRedirectUris,
        skip_consent: false,
        owner: app.owner,
      }),

    async deleteClient(clientId) {
      const res = await requestJson(SERVICE, `${baseUrl}/admin/clients/${encodeURIComponent(clientId)}`, {
        method: 'DELETE',
        timeoutMs,
      });
      if (res.status === 204) return true;
      if (res.status === 404) return false;
      throw upstreamError(SERVICE, `answered ${res.status} when deleting a client`);
    },
  };
}
