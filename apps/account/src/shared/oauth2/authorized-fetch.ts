import { copy } from '../../copy.ts';
import type { AccountConfig } from '../config/env.ts';
import type { RefreshDeps } from './refresh.ts';
import { getValidToken } from './refresh.ts';

// Calls that carry the OAuth2 bearer token. A request answered with 401
// triggers one refresh and one retry. Null token (refresh failed): the caller sends the user to logout.

export class NoTokenError extends Error {
  constructor() {
    super(copy.errors.fullReauth);
    this.name = 'NoTokenError';
  }
}

export async function authorizedFetch(
  config: Pick<AccountConfig, 'oauth2Url' | 'clientId'>,
  url: string,
  init: RequestInit = {},
  deps?: RefreshDeps,
): Promise<Response> {
  const fetchImpl = deps?.fetchImpl ?? fetch;
  const send = (accessToken: string) => {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${accessToken}`);
    return fetchImpl(url, { ...init, headers });
  };
  const token = await getValidToken(config, {}, deps);
  if (!token) throw new NoTokenError();
  const first = await send(token.accessToken);
  if (first.status !== 401) return first;
  const refreshed = await getValidToken(config, { force: true }, deps);
  if (!refreshed) throw new NoTokenError();
  return send(refreshed.accessToken);
}
