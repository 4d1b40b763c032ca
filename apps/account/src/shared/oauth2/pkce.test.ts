import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64UrlEncode, codeChallengeS256, createCodeVerifier, createState } from './pkce.ts';

describe('PKCE (RFC 7636, S256 only)', () => {
  it('makes a 43-character base64url verifier from 32 random bytes', () => {
    const verifier = createCodeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createCodeVerifier()).not.toBe(verifier);
  });

  it('computes the S256 challenge as base64url(SHA-256(verifier))', async () => {
    // RFC 7636 appendix B test vector.
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(await codeChallengeS256(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('matches Node crypto for random verifiers', async () => {
    for (let i = 0; i < 20; i++) {
      const v = createCodeVerifier();
      expect(await codeChallengeS256(v)).toBe(createHash('sha256').update(v).digest('base64url'));
    }
  });

  it('makes a random state of at least 8 characters (Hydra minimum)', () => {
    expect(createState().length).toBeGreaterThanOrEqual(8);
    expect(createState()).not.toBe(createState());
  });

  it('base64url-encodes without padding or +/', () => {
    expect(base64UrlEncode(new Uint8Array([251, 255, 191]))).toBe('-_-_');
    expect(base64UrlEncode(new Uint8Array([1]))).toBe('AQ');
  });
});
