import type { AccessTokenClaims } from '../oauth2/jwt.ts';

// The access guard and its outcomes: login, denied for the mode, the product or the scope group.

export type AccessDecision =
  | { type: 'allow' }
  | { type: 'login' }
  | { type: 'denied-mode' }
  | { type: 'denied-product'; product: string }
  | { type: 'denied-scope' };

export function checkAccess(input: {
  authenticated: boolean;
  claims: AccessTokenClaims | null;
  allowedModes: string[];
  requiredProducts?: string[];
  requiredScopeGroups?: string[];
}): AccessDecision {
  if (!input.authenticated || !input.claims) return { type: 'login' };
  const mode = input.claims.ext?.user?.authenticationMode ?? 'ory';
  if (!input.allowedModes.includes(mode)) return { type: 'denied-mode' };
  const products = input.claims.ext?.products ?? [];
  if (input.requiredProducts?.length && !input.requiredProducts.some((p) => products.includes(p))) {
    return { type: 'denied-product', product: input.requiredProducts.join(', ') };
  }
  const groups = input.claims.ext?.scopeGroups ?? [];
  if (input.requiredScopeGroups?.length && !input.requiredScopeGroups.some((g) => groups.includes(g))) {
    return { type: 'denied-scope' };
  }
  return { type: 'allow' };
}
