import type { AccessTokenClaims } from '../../shared/oauth2/jwt.ts';
import { isUnsubscribed } from '../../shared/config/select-initial-page.ts';

// The access guard, one pure function. Every protected page (the landing pages and the welcome page)
// asks it before rendering:
// - the user must be authenticated with a token (guests go to logout when the page asks, else login);
// - the token's authentication mode must be in the allowed list (the unauthorised-mode page when the
//   page has one, else the generic Access Denied page);
// - an organisation without a subscription sees the welcome page (never an error);
// - the token's products must include at least one required product, when any are required;
// - the token's scope groups must include at least one required scope group, when any are required.

export interface AccessInput {
  authenticated: boolean;
  claims: AccessTokenClaims | null;
  allowedModes: readonly string[];
  requiredProducts?: readonly string[];
  requiredScopeGroups?: readonly string[];
  /** Send guests to logout (clearing local login state) instead of login. */
  logoutGuests?: boolean;
  /** The page shows its own unauthorised-mode page; otherwise the generic one. */
  hasModePage?: boolean;
  /** Send organisations without a subscription to the welcome page (false on the welcome page itself). */
  welcomeUnsubscribed?: boolean;
}

export type AccessDecision =
  | { type: 'allow' }
  | { type: 'login' }
  | { type: 'logout' }
  | { type: 'welcome' }
  | { type: 'denied-mode'; mode: string }
  | { type: 'denied-product'; product: string }
  | { type: 'denied-page' };

export function decideAccess(input: AccessInput): AccessDecision {
  if (!input.authenticated || !input.claims) return { type: input.logoutGuests ? 'logout' : 'login' };
  const mode = input.claims.ext?.user?.authenticationMode ?? 'ory';
  if (!input.allowedModes.includes(mode)) {
    return input.hasModePage ? { type: 'denied-mode', mode } : { type: 'denied-page' };
  }
  if (input.welcomeUnsubscribed && isUnsubscribed(input.claims)) return { type: 'welcome' };
  const products = input.claims.ext?.products ?? [];
  const required = input.requiredProducts ?? [];
  if (required.length > 0 && !required.some((p) => products.includes(p))) {
    return { type: 'denied-product', product: required.join(', ') };
  }
  const groups = input.claims.ext?.scopeGroups ?? [];
  const requiredGroups = input.requiredScopeGroups ?? [];
  if (requiredGroups.length > 0 && !requiredGroups.some((g) => groups.includes(g))) {
    return { type: 'denied-page' };
  }
  return { type: 'allow' };
}
