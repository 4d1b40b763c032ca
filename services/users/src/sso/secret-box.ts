import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// Client secrets of organisations' identity providers are encrypted at rest with AES-256-GCM.
// The stored form is `v1.<iv>.<ciphertext>.<tag>` (base64url). The provider id is the additional
// authenticated data, so a ciphertext copied onto another provider's row does not decrypt.

const VERSION = 'v1';

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** `key` is any string of at least 32 characters; it is hashed to the 256-bit AES key. */
export function createSecretBox(key: string): SecretBox {
  const aesKey = createHash('sha256').update(key, 'utf8').digest();
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', aesKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv, body, cipher.getAuthTag()]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, context) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || body === undefined || !tag) throw new Error('unknown secret format');
      const decipher = createDecipheriv('aes-256-gcm', aesKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
  };
}
