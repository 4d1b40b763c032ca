import { z } from 'zod';
import { hasOwnKey } from '@acme/service-kit/prototype';
import type { Config } from '../config.ts';
import { AppError } from '../http/errors.ts';
import { upstreamError } from './http-json.ts';

const SERVICE = 'source-code host';

const tokenAnswerSchema = z.union([
  z.object({ access_token: z.string().min(1), token_type: z.string().optional() }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);

const userSchema = z.object({ login: z.string().min(1).max(100), id: z.union([z.number(), z.string()]) });

interface GitHostUser {
  login: string;
  id: string;
}

/** A GitHub-compatible OAuth app host: authorize URL, code exchange and `GET /user`. */
export interface GitHostClient {
  authorizeUrl(state: string, redirectUri: string): string;
  /**
   * Exchanges the code and reads the account it belongs to. The access token is used for this one
   * call and then dropped. Host refusals (`bad_verification_code`, …) are 400 `GIT_AUTH_FAILED`.
   */
  userForCode(code: string, redirectUri: string): Promise<GitHostUser>;
}

export function createGitHostClient(git: Config['git'], timeoutMs: number): GitHostClient {
  return {
    authorizeUrl(state, redirectUri) {
      const url = new URL(git.authorizeUrl);
      url.searchParams.set('client_id', git.clientId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('state', state);
      if (git.scope.length > 0) url.searchParams.set('scope', git.scope);
      url.searchParams.set('allow_signup', 'false');
      return url.toString();
    },

    async userForCode(code, redirectUri) {
      const tokenBody = await call(git.tokenUrl, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          client_id: git.clientId,
          client_secret: git.clientSecret,
          code,
          redirect_uri: redirectUri,
        }).toString(),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (tokenBody.status >= 500) throw upstreamError(SERVICE, `answered ${tokenBody.status} for a token`);
      const token = tokenAnswerSchema.safeParse(tokenBody.body);
      if (!token.success) {
        throw upstreamError(SERVICE, `answered ${tokenBody.status} with an unexpected token shape`);
      }
      if (hasOwnKey(token.data, 'error')) {
        const message = (token.data.error_description ?? token.data.error).slice(0, 300);
        throw new AppError('GIT_AUTH_FAILED', `${token.data.error}: ${message}`);
      }

      const userBody = await call(`${git.apiUrl}/user`, {
        method: 'GET',
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${token.data.access_token}`,
          'user-agent': 'acme-users-service',
        },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (userBody.status === 401 || userBody.status === 403) {
        throw new AppError('GIT_AUTH_FAILED', 'The source-code host refused the access token.');
      }
      if (userBody.status !== 200) throw upstreamError(SERVICE, `answered ${userBody.status} for the user`);
      const user = userSchema.safeParse(userBody.body);
      if (!user.success) throw upstreamError(SERVICE, 'answered with an unexpected user shape');
      return { login: user.data.login, id: String(user.data.id) };
    },
  };
}

async function call(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw upstreamError(SERVICE, 'is unreachable');
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw upstreamError(SERVICE, 'closed the connection');
  }
  const type = response.headers.get('content-type') ?? '';
  if (type.includes('application/x-www-form-urlencoded')) {
    return { status: response.status, body: Object.fromEntries(new URLSearchParams(text)) };
  }
  try {
    return { status: response.status, body: text.length > 0 ? (JSON.parse(text) as unknown) : undefined };
  } catch {
    throw upstreamError(SERVICE, `answered ${response.status} with a body that is not JSON`);
  }
}
