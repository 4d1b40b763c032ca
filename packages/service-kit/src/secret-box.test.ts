import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.ts';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);

/** A value sealed the way the single-key box did before key lists (`v1.`, no key id). */
function sealV1(key: string, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(key).digest(), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, body, cipher.getAuthTag()]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

describe('secrets at rest', () => {
  const box = createSecretBox(['k'.repeat(40)]);

  it('round-trips, and never stores the plaintext or the same ciphertext twice', () => {
    const a = box.seal('s3cret-value', 'globex');
    const b = box.seal('s3cret-value', 'globex');
    expect(a).not.toContain('s3cret-value');
    expect(a).not.toBe(b);
    expect(box.open(a, 'globex')).toBe('s3cret-value');
  });

  it("refuses a ciphertext moved to another provider's row", () => {
    expect(() => box.open(box.seal('x', 'globex'), 'initech')).toThrow();
  });

  it('refuses a tampered ciphertext and another key', () => {
    const sealed = box.seal('x', 'globex');
    const parts = sealed.split('.');
    // Its first byte flipped: never the same ciphertext (replacing it by a fixed byte was, one run in 256).
    const ciphertext = Buffer.from(parts[3]!, 'base64url');
    ciphertext[0]! ^= 0xff;
    parts[3] = ciphertext.toString('base64url');
    expect(() => box.open(parts.join('.'), 'globex')).toThrow();
    expect(() => createSecretBox(['z'.repeat(40)]).open(sealed, 'globex')).toThrow();
  });
});

describe('rotating the key of secrets at rest', () => {
  it('seals under the first key, opens under any listed key, and says what is due to be sealed again', () => {
    const before = createSecretBox([OLD]).seal('client-secret', 'globex');
    const during = createSecretBox([NEW, OLD]);
    expect(during.open(before, 'globex')).toBe('client-secret');
    expect(during.isCurrent(before)).toBe(false);
    const again = during.seal('client-secret', 'globex');
    expect(during.isCurrent(again)).toBe(true);
    expect(createSecretBox([NEW]).open(again, 'globex')).toBe('client-secret');
  });

  it('still opens v1 ciphertexts (from before key lists) under any listed key', () => {
    const legacy = sealV1(OLD, 'client-secret', 'globex');
    expect(createSecretBox([NEW, OLD]).open(legacy, 'globex')).toBe('client-secret');
    expect(createSecretBox([NEW, OLD]).isCurrent(legacy)).toBe(false);
    expect(() => createSecretBox([NEW]).open(legacy, 'globex')).toThrow();
  });

  it('refuses a secret sealed under an old key once that key is dropped from the list', () => {
    const sealed = createSecretBox([OLD, NEW]).seal('client-secret', 'globex');
    expect(() => createSecretBox([NEW]).open(sealed, 'globex')).toThrow(/unknown key id/);
  });

  it('refuses a tampered ciphertext whose key id names no configured key', () => {
    const sealed = createSecretBox([NEW]).seal('client-secret', 'globex');
    const parts = sealed.split('.');
    parts[1] = Buffer.from('12345678').toString('base64url');
    expect(() => createSecretBox([NEW, OLD]).open(parts.join('.'), 'globex')).toThrow(/unknown key id/);
    // Nor does the id of another listed key make it open: the tag is checked under that key.
    parts[1] = createSecretBox([OLD]).seal('x', 'y').split('.')[1]!;
    expect(() => createSecretBox([NEW, OLD]).open(parts.join('.'), 'globex')).toThrow();
  });
});
