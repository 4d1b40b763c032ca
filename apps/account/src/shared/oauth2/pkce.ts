import { CODE_VERIFIER_BYTES } from '../../constants.ts';

// PKCE (RFC 7636) with S256 only.

export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomBase64Url(byteLength: number): string {
  const bytes = new Uint8Array(byteLength);
  crypto.getRandomValues(bytes);
  return base64UrlEncode(bytes);
}

/** Code verifier from 32 random bytes: 43 base64url characters (RFC 7636 §4.1). */
export function createCodeVerifier(): string {
  return randomBase64Url(CODE_VERIFIER_BYTES);
}

export function createState(): string {
  return randomBase64Url(16);
}

/** S256 code challenge: base64url(SHA-256(ascii(verifier))). */
export async function codeChallengeS256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64UrlEncode(new Uint8Array(digest));
}
