import { describe, expect, it } from 'vitest';
import { decodeJwtPayload, InvalidTokenError, tryDecodeJwtPayload } from './jwt.ts';

function jwt(payload: unknown): string {
  const enc = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${enc({ alg: 'RS256' })}.${enc(payload)}.sig`;
}

describe('decodeJwtPayload', () => {
  it('reads exp and the ext claims', () => {
    const claims = decodeJwtPayload(
      jwt({
        exp: 1,
        ext: { user: { authenticationMode: 'ory' }, products: ['Platform'], scopeGroups: ['g'] },
        sub: 'é',
      }),
    );
    expect(claims.ext?.user?.authenticationMode).toBe('ory');
    expect(claims.ext?.products).toEqual(['Platform']);
    expect(claims.sub).toBe('é');
  });

  it.each([
    ['not a string', 42],
    ['no payload segment', 'abc'],
    ['payload not base64 JSON', 'a.%%%.c'],
    ['payload JSON of the wrong shape', jwt({ exp: 'soon' })],
  ])('rejects %s', (_name, value) => {
    expect(() => decodeJwtPayload(value)).toThrow(InvalidTokenError);
    expect(tryDecodeJwtPayload(value)).toBeNull();
  });
});
