import { getConfig } from '../../shared/config/env.ts';
import type { OAuth2Token } from '../../shared/storage/registry.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read } from '../../shared/storage/storage.ts';
import { backendLogin, tokenFromBackendLogin } from './m365-backend.ts';

// Renewal of an m365 access token (the token lifecycle's extension point for authenticationMode m365):
// there is no refresh token of ours; a new Microsoft token, silently, then the backend login again.

export interface MicrosoftCredentials {
  bearer: string;
  graphAccessToken: string | null;
}

export async function renewM365Token(deps: {
  usersUrl: string;
  microsoftCredentials: () => Promise<MicrosoftCredentials | null>;
  now: () => number;
}): Promise<OAuth2Token | null> {
  const credentials = await deps.microsoftCredentials();
  if (!credentials) return null;
  const answer = await backendLogin(deps.usersUrl, credentials.bearer, credentials.graphAccessToken);
  return tokenFromBackendLogin(answer, deps.now());
}

/** Inside Teams the SDK's token; in the browser MSAL's silent tokens. The libraries load only here. */
async function silentMicrosoftCredentials(): Promise<MicrosoftCredentials | null> {
  const m365 = getConfig().m365;
  if (!m365) return null;
  if (read(registry.isTeams) === true) {
    const [{ initializeTeams }, { teamsAuthToken }] = await Promise.all([
      import('../../shared/teams/teams-sdk.ts'),
      import('./teams-client.ts'),
    ]);
    await initializeTeams(m365.extraFrameAncestors);
    return { bearer: await teamsAuthToken(m365.clientId), graphAccessToken: null };
  }
  const { getMsalInstance, silentTokens } = await import('./msal-client.ts');
  const tokens = await silentTokens(await getMsalInstance(m365));
  return tokens ? { bearer: tokens.identityToken, graphAccessToken: tokens.directoryToken } : null;
}

/** The renewal the token lifecycle runs for an m365 token (under its refresh lock, with its retries). */
export function renewM365TokenSilently(): Promise<OAuth2Token | null> {
  return renewM365Token({
    usersUrl: getConfig().usersUrl,
    microsoftCredentials: silentMicrosoftCredentials,
    now: () => Date.now(),
  });
}
