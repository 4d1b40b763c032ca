import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** What the CLI keeps between runs: the issuer's tokens (refresh token included). */
export interface StoredTokens {
  issuer: string;
  clientId: string;
  accessToken: string;
  refreshToken: string | null;
  idToken: string | null;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/**
 * The user's config directory: `RESEARCH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/research-cli`, else
 * `%APPDATA%\research-cli` on Windows, else `~/.config/research-cli`.
 */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.RESEARCH_CONFIG_DIR) return env.RESEARCH_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'research-cli');
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'research-cli');
  return join(homedir(), '.config', 'research-cli');
}

function tokenFile(dir: string): string {
  return join(dir, 'tokens.json');
}

/** Writes the tokens readable by the user only (directory 0700, file 0600). */
export async function saveTokens(dir: string, tokens: StoredTokens): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = tokenFile(dir);
  await writeFile(file, `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  // An existing file keeps its mode on write: set it every time.
  await chmod(file, 0o600);
}

export async function loadTokens(dir: string): Promise<StoredTokens | null> {
  try {
    return JSON.parse(await readFile(tokenFile(dir), 'utf8')) as StoredTokens;
  } catch {
    return null;
  }
}

export async function deleteTokens(dir: string): Promise<void> {
  await rm(tokenFile(dir), { force: true });
}
