import type { AccessTokenClaims } from '../oauth2/jwt.ts';
import type { InitialPageTable } from './env.ts';

/** The welcome page for organisations without a subscription (a platform page, like the landing pages). */
export const WELCOME_PATH = '/welcome';

/** Whether the token says its organisation has no subscription (an absent state counts as subscribed). */
export function isUnsubscribed(claims: AccessTokenClaims | null): boolean {
  return claims?.ext?.subscriptionStatus === 'not_subscribed';
}

function matches(required: string[] | undefined, held: string[]): boolean {
  return !required || required.length === 0 || required.some((r) => held.includes(r));
}

/**
 * The page after sign-in, a pure function of the configured table and the token's claims: the
 * welcome page when the organisation has no subscription, else the first table rule whose products
 * and scope groups match `ext.products` / `ext.scopeGroups`, else the table's default.
 */
export function selectInitialPage(table: InitialPageTable, claims: AccessTokenClaims | null): string {
  if (isUnsubscribed(claims)) return WELCOME_PATH;
  const products = claims?.ext?.products ?? [];
  const scopeGroups = claims?.ext?.scopeGroups ?? [];
  const rule = table.rules.find((r) => matches(r.products, products) && matches(r.scopeGroups, scopeGroups));
  return `/${rule?.page ?? table.default}`;
}

/** Every landing page of the table (paths), the default first. */
export function landingPaths(table: InitialPageTable): string[] {
  return [...new Set([table.default, ...table.rules.map((r) => r.page)])].map((p) => `/${p}`);
}
