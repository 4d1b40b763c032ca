import type { AccessTokenClaims } from '../oauth2/jwt.ts';

/** Who the header names, and whether their menu offers the organisation console. */
export interface ShellPerson {
  name: string;
  organisation: string | null;
  mayOpenConsole: boolean;
}

/** Roles whose permissions open at least one console section (a member's open none). */
const CONSOLE_ROLES: readonly string[] = ['admin', 'org-admin', 'super-admin'];

/**
 * The header's person, from the access token's claims and the user service's account answer (the
 * organisation's name; the name and email when there is no token): null when neither names anyone.
 * The console's own permission check stays the user service's; this only decides the menu item.
 */
export function selectShellPerson(
  claims: AccessTokenClaims | null,
  account: { name: string; email: string; organisation: { name: string } } | null,
): ShellPerson | null {
  const user = claims?.ext?.user;
  const name = user?.name || user?.email || account?.name || account?.email;
  if (!name) return null;
  return {
    name,
    organisation: account?.organisation.name || null,
    mayOpenConsole: CONSOLE_ROLES.includes(claims?.ext?.role ?? ''),
  };
}
