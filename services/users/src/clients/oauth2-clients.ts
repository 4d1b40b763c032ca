import { adminAuthHeaders } from '@acme/service-kit/admin-access';
import { z } from 'zod';
import { requestJson as sendJson, upstreamError, type JsonRequest } from './http-json.ts';

const SERVICE = 'authorization server';

const createdSchema = z.object({ client_id: z.string().min(1), client_secret: z.string().min(1) });

/** The authorization server's (Hydra-compatible) admin client API, for API clients. */
export interface OAuth2ClientsAdmin {
  /** A client-credentials client whose tokens carry `ext`; the secret is answered only here. */
  createApiClient(
    name: string,
    ext: Record<string, unknown>,
  ): Promise<{ clientId: string; clientSecret: string }>;
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
  return {
    async createApiClient(name, ext) {
      const res = await requestJson(SERVICE, `${baseUrl}/admin/clients`, {
        method: 'POST',
        body: {
          client_name: name,
          grant_types: ['client_credentials'],
          token_endpoint_auth_method: 'client_secret_basic',
          metadata: { ext },
        },
        timeoutMs,
      });
      if (res.status !== 201) throw upstreamError(SERVICE, `answered ${res.status} when creating a client`);
      const parsed = createdSchema.safeParse(res.body);
      if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected client shape');
      return { clientId: parsed.data.client_id, clientSecret: parsed.data.client_secret };
    },

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
