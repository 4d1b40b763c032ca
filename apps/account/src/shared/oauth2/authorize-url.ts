import { OAUTH2_SCOPES } from '../../constants.ts';
import { paths } from '../config/paths.ts';

export function redirectUri(origin: string): string {
  return `${origin}${paths.callback}`;
}

/** `{oauth2Url}/oauth2/auth` with PKCE S256. */
export function buildAuthorizeUrl(input: {
  oauth2Url: string;
  clientId: string;
  origin: string;
  state: string;
  codeChallenge: string;
}): string {
  const url = new URL('/oauth2/auth', input.oauth2Url);
  url.searchParams.set('client_id', input.clientId);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('redirect_uri', redirectUri(input.origin));
  url.searchParams.set('state', input.state);
  url.searchParams.set('code_challenge', input.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  url.searchParams.set('scope', OAUTH2_SCOPES);
  return url.toString();
}
