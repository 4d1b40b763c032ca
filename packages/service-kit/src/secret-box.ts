import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Secrets kept at rest (organisations' SSO client secrets, the authorization server's private
// signing keys) are encrypted with AES-256-GCM under a key from configuration. The configuration
// holds a list: the first key seals, every key opens, so the key is rotated without a failed
// request (docs/secrets.md, "Rotating a secret").
//
// Stored form `v2.<key id>.<iv>.<ciphertext>.<tag>` (base64url). The key id is a hash of the key
// (it names which entry of the list sealed it, and says nothing about the key), so opening picks
// that key and refuses an id no configured key has. The `context` is the additional
// authenticated data (e.g. the row's id), so a ciphertext copied onto another row does not open.
// `v1.<iv>.<ciphertext>.<tag>`, from before key lists, carries no id: it is tried under each key.

const V1 = 'v1';
const V2 = 'v2';

/** A sealed value that cannot be opened: unknown format, unknown key id, or failed authentication. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /** Whether `sealed` is under the first key (else it is due to be sealed again). */
  isCurrent(sealed: string): boolean;
}

interface BoxKey {
  id: string;
  aes: Buffer;
}

const b64 = (part: Buffer) => part.toString('base64url');

/** Each key is any string of at least 32 characters; it is hashed to the 256-bit AES key. */
function boxKey(key: string): BoxKey {
  return {
    aes: createHash('sha256').update(key, 'utf8').digest(),
    id: b64(createHash('sha256').update(`secret-box key id\0${key}`, 'utf8').digest().subarray(0, 8)),
  };
}

function decrypt(key: BoxKey, iv: string, body: string, tag: string, context: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key.aes, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

function openV1(keys: readonly BoxKey[], parts: string[], context: string): string {
  const [, iv, body, tag] = parts;
  if (parts.length !== 4 || !iv || body === undefined || !tag)
    throw new SecretBoxError('unknown secret format');
  for (const key of keys) {
    try {
      return decrypt(key, iv, body, tag, context);
    } catch {
      // the next key, if any
    }
  }
  throw new SecretBoxError('no configured key opens this secret');
}

/** `keys`: the configured list, first first (it seals). */
export function createSecretBox(keys: readonly string[]): SecretBox {
  if (keys.length === 0) throw new Error('a secret box needs at least one key');
  const boxKeys = keys.map(boxKey);
  const first = boxKeys[0]!;
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', first.aes, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [V2, first.id, b64(iv), b64(body), b64(cipher.getAuthTag())].join('.');
    },
    open(sealed, context) {
      const parts = sealed.split('.');
      if (parts[0] === V1) return openV1(boxKeys, parts, context);
      const [version, id, iv, body, tag] = parts;
      if (version !== V2 || parts.length !== 5 || !iv || body === undefined || !tag)
        throw new SecretBoxError('unknown secret format');
      const key = boxKeys.find((k) => k.id === id);
      if (!key) throw new SecretBoxError('sealed under a key that is not configured (unknown key id)');
      try {
        return decrypt(key, iv, body, tag, context);
      } catch {
        throw new SecretBoxError('the secret does not authenticate under its key');
      }
    },
    isCurrent(sealed) {
      const [version, id] = sealed.split('.');
      return version === V2 && id === first.id;
    },
  };
}
