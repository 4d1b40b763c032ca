import { pbkdf2, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

/**
 * Password hashes imported from another system, in the formats Kratos accepts for
 * `credentials.password.config.hashed_password` besides argon2 and bcrypt:
 *
 * - PBKDF2: `$pbkdf2-<sha1|sha224|sha256|sha384|sha512>$i=<iterations>,l=<key length>$<salt>$<hash>`
 * - scrypt: `$scrypt$ln=<cost N>,r=<block size>,p=<parallelism>$<salt>$<hash>`
 *
 * Salt and hash are base64 (standard alphabet, padding optional). They are verified as imported and
 * replaced by our argon2id at the person's next successful sign-in. The parameters are bounded, so
 * an imported hash can never make one sign-in cost more than a few argon2 checks.
 */

const pbkdf2Async = promisify(pbkdf2);
const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const B64 = '[A-Za-z0-9+/]+={0,2}';
const PBKDF2 = new RegExp(
  `^\\$pbkdf2-(sha1|sha224|sha256|sha384|sha512)\\$i=(\\d{1,8}),l=(\\d{1,3})\\$(${B64})\\$(${B64})$`,
);
const SCRYPT = new RegExp(`^\\$scrypt\\$ln=(\\d{1,8}),r=(\\d{1,3}),p=(\\d{1,3})\\$(${B64})\\$(${B64})$`);

const LIMITS = {
  pbkdf2MaxIterations: 2_000_000,
  scryptMaxN: 2 ** 20,
  scryptMaxR: 32,
  scryptMaxP: 16,
  /** scrypt needs 128·N·r bytes: at most 256 MiB for one check. */
  scryptMaxMemory: 256 * 1024 * 1024,
  maxKeyBytes: 128,
  minKeyBytes: 16,
};

type Parsed =
  | { kind: 'pbkdf2'; digest: string; iterations: number; salt: Buffer; key: Buffer }
  | { kind: 'scrypt'; N: number; r: number; p: number; salt: Buffer; key: Buffer };

/** The imported hash's parameters, or undefined when it is not a well-formed, bounded one. */
function parse(hashed: string): Parsed | undefined {
  const pb = PBKDF2.exec(hashed);
  if (pb) {
    const iterations = Number(pb[2]);
    const salt = Buffer.from(pb[4]!, 'base64');
    const key = Buffer.from(pb[5]!, 'base64');
    if (iterations < 1 || iterations > LIMITS.pbkdf2MaxIterations) return undefined;
    if (key.length !== Number(pb[3]) || !keyLengthOk(key) || salt.length === 0) return undefined;
    return { kind: 'pbkdf2', digest: pb[1]!, iterations, salt, key };
  }
  const sc = SCRYPT.exec(hashed);
  if (sc) {
    const [N, r, p] = [Number(sc[1]), Number(sc[2]), Number(sc[3])];
    const salt = Buffer.from(sc[4]!, 'base64');
    const key = Buffer.from(sc[5]!, 'base64');
    const powerOfTwo = N > 1 && (N & (N - 1)) === 0;
    if (!powerOfTwo || N > LIMITS.scryptMaxN || r < 1 || r > LIMITS.scryptMaxR) return undefined;
    if (p < 1 || p > LIMITS.scryptMaxP || 128 * N * r > LIMITS.scryptMaxMemory) return undefined;
    if (!keyLengthOk(key) || salt.length === 0) return undefined;
    return { kind: 'scrypt', N, r, p, salt, key };
  }
  return undefined;
}

const keyLengthOk = (key: Buffer) => key.length >= LIMITS.minKeyBytes && key.length <= LIMITS.maxKeyBytes;

export const isImportedHash = (hashed: string): boolean => parse(hashed) !== undefined;

/** Whether the password matches an imported PBKDF2 or scrypt hash; false for anything else. */
export async function verifyImportedHash(hashed: string, password: string): Promise<boolean> {
  const h = parse(hashed);
  if (!h) return false;
  const derived =
    h.kind === 'pbkdf2'
      ? await pbkdf2Async(password, h.salt, h.iterations, h.key.length, h.digest)
      : await scryptAsync(password, h.salt, h.key.length, {
          N: h.N,
          r: h.r,
          p: h.p,
          maxmem: 128 * h.N * h.r * 2 + 1024 * 1024,
        });
  return timingSafeEqual(derived, h.key);
}
