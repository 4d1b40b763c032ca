import { randomBytes } from 'node:crypto';
import { hash as argonHash, verify as argonVerify, parseOptions } from '@node-rs/argon2';
import type { Algorithm } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { errors } from '../errors/identity-error.ts';
import { isImportedHash, verifyImportedHash } from './imported-hashes.ts';
import { createWorkPool, PoolSaturatedError, type PoolOptions, type WorkPool } from './pool.ts';

/** OWASP's argon2id minimum: 19 MiB, t=2, p=1. `@node-rs/argon2` hashes on libuv's thread pool. */
const ARGON2_PARAMS = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const ARGON2ID = 2 as Algorithm;

export async function hashPassword(password: string): Promise<string> {
  return argonHash(password, { ...ARGON2_PARAMS, algorithm: ARGON2ID });
}

/** argon2 (any variant), bcrypt, or an imported PBKDF2 or scrypt hash (`imported-hashes.ts`). */
export function isSupportedHash(hashed: string): boolean {
  if (hashed.startsWith('$argon2')) return isArgon2(hashed);
  return /^\$2[aby]\$(0[4-9]|1\d|2\d|3[01])\$[./A-Za-z0-9]{53}$/.test(hashed) || isImportedHash(hashed);
}

function isArgon2(hashed: string): boolean {
  if (!/^\$argon2(id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/.test(hashed))
    return false;
  try {
    const o = parseOptions(hashed);
    // Bounded as the imported hashes are: one sign-in never costs more than 256 MiB or so.
    return o.memoryCost! <= 262_144 && o.timeCost! <= 16 && o.parallelism! <= 16;
  } catch {
    return false;
  }
}

/** Verifies against argon2 (any variant/params), bcrypt, PBKDF2 or scrypt. Never throws on a malformed hash. */
export async function verifyPassword(hashed: string, password: string): Promise<boolean> {
  try {
    if (hashed.startsWith('$argon2')) return await argonVerify(hashed, password);
    if (/^\$2[aby]\$/.test(hashed)) return await bcrypt.compare(password, hashed);
    if (hashed.startsWith('$pbkdf2-') || hashed.startsWith('$scrypt$'))
      return await verifyImportedHash(hashed, password);
  } catch {
    return false;
  }
  return false;
}

/** True when the stored hash is not argon2id with the current parameters. */
export function needsRehash(hashed: string): boolean {
  if (!hashed.startsWith('$argon2id$')) return true;
  try {
    const o = parseOptions(hashed);
    return (
      o.memoryCost !== ARGON2_PARAMS.memoryCost ||
      o.timeCost !== ARGON2_PARAMS.timeCost ||
      o.parallelism !== ARGON2_PARAMS.parallelism
    );
  } catch {
    return true;
  }
}

let dummy: Promise<string> | undefined;
/** Burns the same time as a real check, for identifiers that have no password. */
async function verifyDummy(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  await argonVerify(await dummy, password).catch(() => false);
  return false;
}

/**
 * Hashing and verification through one bounded pool per service instance (`ctx.passwords`): every
 * argon2 or bcrypt computation a request triggers goes through it. When the pool's queue is full the
 * call throws the 503 envelope with Retry-After, before any failed-attempt counter is touched.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
  /** Same cost as `verify`, for identifiers without a password (timing does not tell them apart). */
  verifyDummy(password: string): Promise<false>;
  readonly pool: WorkPool;
}

/** Seconds a refused client is told to wait: a hash takes tens of milliseconds, a queue drains fast. */
const OVERLOAD_RETRY_AFTER_SECONDS = 1;

export function createPasswordHasher(options: PoolOptions): PasswordHasher {
  const pool = createWorkPool(options);
  const run = async <T>(task: () => Promise<T>): Promise<T> => {
    try {
      return await pool.run(task);
    } catch (e) {
      if (e instanceof PoolSaturatedError) throw errors.overloaded(OVERLOAD_RETRY_AFTER_SECONDS);
      throw e;
    }
  };
  return {
    pool,
    hash: (password) => run(() => hashPassword(password)),
    verify: (hashed, password) => run(() => verifyPassword(hashed, password)),
    verifyDummy: (password) => run(() => verifyDummy(password)),
  };
}
