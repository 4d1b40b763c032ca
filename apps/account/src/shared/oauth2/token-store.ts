import { TOKEN_EXPIRY_FACTOR_MS } from '../../constants.ts';
import type { OAuth2Token } from '../storage/registry.ts';
import { registry } from '../storage/registry.ts';
import { read, remove, write } from '../storage/storage.ts';

export interface TokenResponse {
  access_token: string;
  refresh_token?: string | null;
  expires_in?: number | null;
}

/** The stored token: accessToken, refreshToken (nullable), expiresAt = now + expires_in × 1000 (nullable). */
export function tokenFromResponse(response: TokenResponse, now: number): OAuth2Token {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token ?? null,
    expiresAt:
      typeof response.expires_in === 'number' ? now + response.expires_in * TOKEN_EXPIRY_FACTOR_MS : null,
  };
}

export function readToken(): OAuth2Token | null {
  return read(registry.oauth2Token);
}

export function storeToken(token: OAuth2Token): void {
  write(registry.oauth2Token, token);
}

export function removeToken(): void {
  remove(registry.oauth2Token);
}
