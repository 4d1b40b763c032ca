#!/usr/bin/env node
import { spawn } from 'node:child_process';
import {
  jwtClaims,
  OAuthError,
  pollForTokens,
  refreshTokens,
  revokeToken,
  startDeviceAuthorization,
  type TokenResponse,
} from './device-client.ts';
import { configDir, deleteTokens, loadTokens, saveTokens, type StoredTokens } from './token-store.ts';

/**
 * `npm run research -- login | whoami | logout` (or the `research` bin).
 * Settings: RESEARCH_ISSUER (default http://localhost:4444), RESEARCH_CLIENT_ID (research-cli),
 * RESEARCH_CONFIG_DIR (where the tokens live), RESEARCH_NO_BROWSER=1 (do not open a browser).
 */

const USAGE = `usage: research <command>

  login    sign in from this terminal (device authorization: a code to approve in your browser)
  whoami   print the claims of your access token (refreshed when due)
  logout   revoke your refresh token and forget the tokens
`;

const env = process.env;
const issuer = (env.RESEARCH_ISSUER ?? 'http://localhost:4444').replace(/\/+$/, '');
const clientId = env.RESEARCH_CLIENT_ID ?? 'research-cli';
const dir = configDir();

function stored(tokens: TokenResponse, previous?: StoredTokens): StoredTokens {
  return {
    issuer,
    clientId,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token ?? previous?.refreshToken ?? null,
    idToken: tokens.id_token ?? previous?.idToken ?? null,
    expiresAt: Date.now() + tokens.expires_in * 1000,
  };
}

function openBrowser(url: string): void {
  if (env.RESEARCH_NO_BROWSER === '1' || !process.stdout.isTTY) return;
  const command =
    process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  try {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser here (a remote shell, a container): the URL is printed.
  }
}

async function login(): Promise<void> {
  const auth = await startDeviceAuthorization(issuer, clientId);
  const url = auth.verification_uri_complete ?? auth.verification_uri;
  process.stdout.write(
    `To sign in, open ${auth.verification_uri}\nand enter the code ${auth.user_code}\n` +
      `(or open ${url})\nWaiting for approval…\n`,
  );
  openBrowser(url);
  const tokens = await pollForTokens(issuer, clientId, auth);
  await saveTokens(dir, stored(tokens));
  const claims = jwtClaims(tokens.access_token);
  process.stdout.write(`Signed in (subject ${String(claims.sub)}).\n`);
}

/** The stored tokens, refreshed (and saved: refresh tokens rotate) when the access token is due. */
async function currentTokens(): Promise<StoredTokens> {
  const tokens = await loadTokens(dir);
  if (!tokens) throw new Error('Not signed in: run `research login` first.');
  if (tokens.expiresAt - Date.now() > 30_000) return tokens;
  if (!tokens.refreshToken) throw new Error('The session has ended: run `research login` again.');
  const refreshed = stored(await refreshTokens(tokens.issuer, tokens.clientId, tokens.refreshToken), tokens);
  await saveTokens(dir, refreshed);
  return refreshed;
}

async function whoami(): Promise<void> {
  const tokens = await currentTokens();
  process.stdout.write(`${JSON.stringify(jwtClaims(tokens.accessToken), null, 2)}\n`);
}

async function logout(): Promise<void> {
  const tokens = await loadTokens(dir);
  if (tokens?.refreshToken) await revokeToken(tokens.issuer, tokens.clientId, tokens.refreshToken);
  await deleteTokens(dir);
  process.stdout.write('Signed out.\n');
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  const commands: Record<string, () => Promise<void>> = { login, whoami, logout };
  const run = command ? commands[command] : undefined;
  if (!run) {
    process.stdout.write(USAGE);
    return command && command !== 'help' ? 2 : 0;
  }
  try {
    await run();
    return 0;
  } catch (error) {
    const message =
      error instanceof OAuthError ? `Error: ${error.message}` : `Error: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
