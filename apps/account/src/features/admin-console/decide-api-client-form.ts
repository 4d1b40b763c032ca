import { consoleCopy as t } from './copy.ts';

// What the API client form sends, or why not. Pure: the name and the scope groups as typed
// (separated by commas or spaces), checked as the user service checks them.

/** A scope group name as the user service accepts it (the API client form and the SCIM group mapping). */
const SCOPE_GROUP = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
const MAX_SCOPE_GROUP = 100;
export const isScopeGroupName = (g: string) => g.length <= MAX_SCOPE_GROUP && SCOPE_GROUP.test(g);
/** The most characters of a console-given name (API clients, SCIM tokens). */
export const MAX_NAME = 100;
/** The most scope groups one API client or one SCIM group mapping grants. */
export const MAX_GROUPS = 50;

export type ApiClientFormDecision =
  { ok: true; body: { name: string; scopeGroups: string[] } } | { ok: false; error: string };

export function decideApiClientForm(input: { name: string; scopeGroups: string }): ApiClientFormDecision {
  const name = input.name.trim();
  if (name.length === 0) return { ok: false, error: t.apiClients.nameRequired };
  if (name.length > MAX_NAME) return { ok: false, error: t.apiClients.nameTooLong(MAX_NAME) };
  const groups = [...new Set(input.scopeGroups.split(/[\s,]+/).filter((g) => g.length > 0))];
  if (groups.length === 0) return { ok: false, error: t.apiClients.groupsRequired };
  if (groups.length > MAX_GROUPS) return { ok: false, error: t.apiClients.tooManyGroups(MAX_GROUPS) };
  const bad = groups.find((g) => !isScopeGroupName(g));
  if (bad !== undefined) return { ok: false, error: t.apiClients.badGroup(bad) };
  return { ok: true, body: { name, scopeGroups: groups } };
}
