import { Secret, TOTP } from 'otpauth';

/** The six-digit code an authenticator app shows for `secret` (base32) at `at`. */
export function totpCode(secret: string, at: Date = new Date()): string {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
  return totp.generate({ timestamp: at.getTime() });
}
