import { tryDecodeJwtPayload } from './jwt.ts';
import { readToken } from './token-lifecycle.ts';

/** This application holds an unexpired token of a Microsoft 365 sign-in (`/m365/login`). */
export function hasValidM365Token(now: number): boolean {
  const token = readToken();
  if (!token || (token.expiresAt !== null && token.expiresAt <= now)) return false;
  return tryDecodeJwtPayload(token.accessToken)?.ext?.user?.authenticationMode === 'm365';
}
