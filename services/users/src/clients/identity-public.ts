import { z } from 'zod';
import { AppError } from '../http/errors.ts';
import { requestJson, upstreamError } from './http-json.ts';

const SERVICE = 'identity service';

const whoamiSchema = z.object({
  id: z.string(),
  active: z.boolean().optional(),
  authenticated_at: z.string().optional(),
  identity: z.object({
    id: z.string(),
    traits: z
      .object({
        userServiceID: z.string().optional(),
        onboarding: z.object({ tosAccepted: z.boolean().optional() }).loose().optional(),
      })
      .loose(),
  }),
});

export type WhoamiSession = z.infer<typeof whoamiSchema>;

/** The caller's credentials as the browser sent them to us; forwarded to the identity service as-is. */
interface CallerCredentials {
  cookie?: string | undefined;
  sessionToken?: string | undefined;
}

/** The identity service's public API, as far as the user service uses it. */
export interface IdentityPublicClient {
  /**
   * The caller's session (`GET /sessions/whoami` with their cookie). No or an invalid session is
   * 401 `UNAUTHENTICATED`; a session that still needs its second factor is 403 `SECOND_FACTOR_REQUIRED`.
   */
  whoami(credentials: CallerCredentials): Promise<WhoamiSession>;
}

export function createIdentityPublicClient(baseUrl: string, timeoutMs: number): IdentityPublicClient {
  return {
    async whoami(credentials) {
      const headers: Record<string, string> = {};
      if (credentials.cookie) headers.cookie = credentials.cookie;
      if (credentials.sessionToken) headers['x-session-token'] = credentials.sessionToken;
      if (Object.keys(headers).length === 0) throw unauthenticated();
      const res = await requestJson(SERVICE, `${baseUrl}/sessions/whoami`, {
        method: 'GET',
        headers,
        timeoutMs,
      });
      if (res.status === 401) throw unauthenticated();
      if (res.status === 403) {
        throw new AppError('SECOND_FACTOR_REQUIRED', 'Complete the second authentication factor first.');
      }
      if (res.status !== 200) throw upstreamError(SERVICE, `answered ${res.status} for whoami`);
      const parsed = whoamiSchema.safeParse(res.body);
      if (!parsed.success) throw upstreamError(SERVICE, 'answered with an unexpected session shape');
      if (parsed.data.active === false) throw unauthenticated();
      return parsed.data;
    },
  };
}

function unauthenticated(): AppError {
  return new AppError('UNAUTHENTICATED', 'Sign in first: no valid identity session came with the request.');
}
