import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

const PERIOD = 30;

/** A new 160-bit base32 secret. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, issuer = '', label = '') {
  return new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: Secret.fromBase32(secret),
  });
}

export function totpUri(secret: string, issuer: string, accountName: string): string {
  return totp(secret, issuer, accountName).toString();
}

export async function totpQrDataUrl(uri: string): Promise<string> {
  return QRCode.toDataURL(uri, { width: 256, margin: 1 });
}

/** The code of a time step (tests use it to compute codes). */
export function totpCodeAt(secret: string, at: Date): string {
  return totp(secret).generate({ timestamp: at.getTime() });
}

/**
 * Checks a code within ±1 step. Returns the matched time step, or null. A step at or before
 * `lastStep` is refused: each code is accepted once.
 */
export function verifyTotp(
  secret: string,
  code: string,
  now: Date,
  lastStep: number | undefined,
): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totp(secret).validate({ token: code, timestamp: now.getTime(), window: 1 });
  if (delta === null) return null;
  const step = Math.floor(now.getTime() / 1000 / PERIOD) + delta;
  if (lastStep !== undefined && step <= lastStep) return null;
  return step;
}
