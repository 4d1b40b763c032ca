import { describe, expect, it } from 'vitest';
import { createSecretBox } from './secret-box.ts';

describe('SSO client secrets at rest', () => {
  const box = createSecretBox('k'.repeat(40));

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
    parts[2] = Buffer.from('y').toString('base64url');
    expect(() => box.open(parts.join('.'), 'globex')).toThrow();
    expect(() => createSecretBox('z'.repeat(40)).open(sealed, 'globex')).toThrow();
  });
});
