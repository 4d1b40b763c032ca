import type {
  AccountInfo,
  AuthenticationResult,
  IPublicClientApplication,
  PopupRequest,
  RedirectRequest,
} from '@azure/msal-browser';
import { BrowserAuthError, InteractionRequiredAuthError, PublicClientApplication } from '@azure/msal-browser';
import { M365_SCOPES } from '../../constants.ts';
import { copy } from '../../copy.ts';
import type { M365Config } from '../../shared/config/env.ts';
import { msalConfiguration } from './msal-config.ts';

// The Microsoft sign-in client: popup, redirect and silent sign-in, and the two tokens the backend
// login needs: the directory token (email, User.Read, Organization.Read.All: a Graph access token) and
// the identity token (email, profile, User.Read: its ID token). Both are acquired silently and cached
// per username; an interaction_required answer falls back to a popup (or a redirect).

export type SignInKind = 'popup' | 'redirect' | 'silent';
export type InteractionKind = 'popup' | 'redirect';
export type TokenKind = 'directory' | 'identity';

interface Cached {
  token: string;
  expiresOn: number;
}

/** Tokens by username, then kind. */
const tokenCache = new Map<string, Partial<Record<TokenKind, Cached>>>();

function cachedToken(username: string, kind: TokenKind, now = Date.now()): string | null {
  const entry = tokenCache.get(username.toLowerCase())?.[kind];
  return entry && entry.expiresOn > now ? entry.token : null;
}

function remember(username: string, kind: TokenKind, token: string, expiresOn: Date | null): void {
  const key = username.toLowerCase();
  const entry = tokenCache.get(key) ?? {};
  // An ID token's lifetime is not in the result; an hour is Entra's, MSAL renews before that.
  entry[kind] = { token, expiresOn: expiresOn?.getTime() ?? Date.now() + 60 * 60 * 1000 };
  tokenCache.set(key, entry);
}

function forgetTokens(username?: string): void {
  if (username) tokenCache.delete(username.toLowerCase());
  else tokenCache.clear();
}

let instance: Promise<PublicClientApplication> | null = null;

/** One MSAL instance per page, initialised once. */
export function getMsalInstance(m365: M365Config): Promise<PublicClientApplication> {
  instance ??= (async () => {
    const pca = new PublicClientApplication(msalConfiguration(m365, window.location.origin));
    await pca.initialize();
    return pca;
  })();
  return instance;
}

const scopesOf = (kind: TokenKind): string[] => [...M365_SCOPES[kind]];

/** True for the error MSAL gives when a popup or redirect is already running. */
function isInteractionInProgress(error: unknown): boolean {
  return error instanceof BrowserAuthError && error.errorCode === 'interaction_in_progress';
}

export async function signIn(
  pca: IPublicClientApplication,
  kind: SignInKind,
  options: { loginHint?: string; redirectStartPage?: string } = {},
): Promise<AccountInfo | null> {
  const request: PopupRequest & RedirectRequest = {
    scopes: scopesOf('directory'),
    loginHint: options.loginHint,
    redirectStartPage: options.redirectStartPage,
  };
  let result: AuthenticationResult;
  switch (kind) {
    case 'popup':
      result = await pca.loginPopup({ ...request, prompt: 'select_account' });
      break;
    case 'redirect':
      await pca.loginRedirect(request);
      return null; // the page navigates away
    case 'silent':
      result = await pca.ssoSilent({ scopes: request.scopes, loginHint: options.loginHint });
      break;
    default:
      throw new Error(copy.m365.invalidInteractionType);
  }
  pca.setActiveAccount(result.account);
  if (result.account) {
    remember(result.account.username, 'directory', result.accessToken, result.expiresOn);
  }
  return result.account;
}

/**
 * One token for the account: from our cache, else MSAL's silent acquisition (its cache or the refresh
 * token), else, when Entra answers interaction_required, interactively.
 */
export async function acquireToken(
  pca: IPublicClientApplication,
  account: AccountInfo,
  kind: TokenKind,
  interaction: InteractionKind,
  busy: () => boolean,
): Promise<string> {
  const cached = cachedToken(account.username, kind);
  if (cached) return cached;
  const scopes = scopesOf(kind);
  const pick = (result: AuthenticationResult): string => {
    const token = kind === 'identity' ? result.idToken : result.accessToken;
    if (!token) throw new Error(copy.m365.noIdentityToken);
    remember(account.username, kind, token, kind === 'identity' ? null : result.expiresOn);
    return token;
  };
  let silentError: unknown;
  try {
    return pick(await pca.acquireTokenSilent({ scopes, account }));
  } catch (error) {
    silentError = error;
  }
  if (!(silentError instanceof InteractionRequiredAuthError)) throw silentError;
  // interaction_required: fall back to an interactive acquisition, unless one is already running.
  if (busy()) throw new Error(copy.m365.interactionInProgress, { cause: silentError });
  if (interaction !== 'popup' && interaction !== 'redirect') {
    throw new Error(copy.m365.invalidInteractionType, { cause: silentError });
  }
  try {
    if (interaction === 'popup') return pick(await pca.acquireTokenPopup({ scopes, account }));
    await pca.acquireTokenRedirect({ scopes, account });
  } catch (error) {
    if (isInteractionInProgress(error)) throw new Error(copy.m365.interactionInProgress, { cause: error });
    throw error;
  }
  // The page is navigating to Microsoft; nothing to return on this one.
  return new Promise<string>(() => undefined);
}

/** True when MSAL holds a signed-in Microsoft account (then logout signs it out too, whatever the mode). */
export function hasCloudAccount(pca: IPublicClientApplication): boolean {
  return pca.getAllAccounts().length > 0;
}

/** Signs out of the Microsoft account (Entra's logout), then Microsoft returns to `postLogoutRedirectUri`. */
export async function signOut(pca: IPublicClientApplication, postLogoutRedirectUri: string): Promise<void> {
  const account = pca.getActiveAccount() ?? pca.getAllAccounts()[0] ?? null;
  forgetTokens();
  await pca.logoutRedirect({ account, postLogoutRedirectUri });
}

/**
 * Token renewal (no window may open): the directory token and a fresh identity token of the signed-in
 * account, from MSAL's cache or its refresh token. Null without a signed-in account.
 */
export async function silentTokens(
  pca: IPublicClientApplication,
): Promise<{ identityToken: string; directoryToken: string } | null> {
  const account = pca.getActiveAccount() ?? pca.getAllAccounts()[0] ?? null;
  if (!account) return null;
  const directory = await pca.acquireTokenSilent({ scopes: scopesOf('directory'), account });
  // The backend login checks the ID token's lifetime: ask for a new one rather than a cached one.
  const identity = await pca.acquireTokenSilent({
    scopes: scopesOf('identity'),
    account,
    forceRefresh: true,
  });
  if (!identity.idToken) throw new Error(copy.m365.noIdentityToken);
  remember(account.username, 'directory', directory.accessToken, directory.expiresOn);
  remember(account.username, 'identity', identity.idToken, null);
  return { identityToken: identity.idToken, directoryToken: directory.accessToken };
}
