import * as z from 'zod/mini';

// A token is a string with a decodable base64 JSON payload, otherwise an invalid-token error.

const accessTokenClaimsSchema = z.looseObject({
  exp: z.optional(z.number()),
  sub: z.optional(z.string()),
  client_id: z.optional(z.string()),
  ext: z.optional(
    z.looseObject({
      user: z.optional(
        z.looseObject({
          authenticationMode: z.optional(z.string()),
          email: z.optional(z.string()),
          name: z.optional(z.string()),
        }),
      ),
      products: z.optional(z.array(z.string())),
      scopeGroups: z.optional(z.array(z.string())),
      role: z.optional(z.string()),
      subscriptionStatus: z.optional(z.string()),
    }),
  ),
});
export type AccessTokenClaims = z.infer<typeof accessTokenClaimsSchema>;

export class InvalidTokenError extends Error {
  constructor(message = 'Invalid token') {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

function base64UrlDecode(segment: string): string {
  const base64 = segment.replace(/-/g, '+').replace(/_/g, '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

export function decodeJwtPayload(token: unknown): AccessTokenClaims {
  if (typeof token !== 'string') throw new InvalidTokenError();
  const payload = token.split('.')[1];
  if (!payload) throw new InvalidTokenError();
  let json: unknown;
  try {
    json = JSON.parse(base64UrlDecode(payload));
  } catch {
    throw new InvalidTokenError();
  }
  const parsed = accessTokenClaimsSchema.safeParse(json);
  if (!parsed.success) throw new InvalidTokenError();
  return parsed.data;
}

export function tryDecodeJwtPayload(token: unknown): AccessTokenClaims | null {
  try {
    return decodeJwtPayload(token);
  } catch {
    return null;
  }
}
