import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits from the CSPRNG, with Kratos's prefix. Only the SHA-256 hash is stored. */
export function newToken(prefix: 'ory_st_' | 'ory_lo_'): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
