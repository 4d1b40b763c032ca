import { MAX_REDIRECT_URIS, type ConsoleCreateApiClient } from '@acme/users-contract/console';
import { consoleCopy as t } from './copy.ts';

// What the API client form sends, or why not. Pure: a client-credentials client's name and scope
// groups as typed (separated by commas or spaces), or a web app's name and redirect URI rows,
// checked as the user service checks them.

/** A scope group name as the user service accepts it (the API client form and the SCIM group mapping). */
const SCOPE_GROUP = /^[A-Za-z0-9][A-Za-z0-9:._-]*$/;
const MAX_SCOPE_GROUP = 100;
export const isScopeGroupName = (g: string) => g.length <= MAX_SCOPE_GROUP && SCOPE_GROUP.test(g);
/** The most characters of a console-given name (API clients, SCIM tokens). */
export const MAX_NAME = 100;
/** The most scope groups one API client or one SCIM group mapping grants. */
export const MAX_GROUPS = 50;

export type ApiClientKind = 'client_credentials' | 'web';

/** The form as typed: the kind chosen, the name, the scope groups (client credentials), the redirect URI rows (web app). */
export interface ApiClientForm {
  kind: ApiClientKind;
  name: string;
  scopeGroups: string;
  redirectUris: string[];
}

/** The field a refusal belongs beside. */
type ApiClientField = 'name' | 'scopeGroups' | 'redirectUris';

export type ApiClientFormDecision =
  { ok: true; body: ConsoleCreateApiClient } | { ok: false; field: ApiClientField; error: string };

const refuse = (field: ApiClientField, error: string): ApiClientFormDecision => ({ ok: false, field, error });

export function decideApiClientForm(input: ApiClientForm): ApiClientFormDecision {
  const name = input.name.trim();
  if (name.length === 0) return refuse('name', t.apiClients.nameRequired);
  if (name.length > MAX_NAME) return refuse('name', t.apiClients.nameTooLong(MAX_NAME));
  if (input.kind === 'web') return decideWebApp(name, input.redirectUris);
  const groups = [...new Set(input.scopeGroups.split(/[\s,]+/).filter((g) => g.length > 0))];
  if (groups.length === 0) return refuse('scopeGroups', t.apiClients.groupsRequired);
  if (groups.length > MAX_GROUPS) return refuse('scopeGroups', t.apiClients.tooManyGroups(MAX_GROUPS));
  const bad = groups.find((g) => !isScopeGroupName(g));
  if (bad !== undefined) return refuse('scopeGroups', t.apiClients.badGroup(bad));
  return { ok: true, body: { name, scopeGroups: groups } };
}

/**
 * A web app's redirect URI rows: blank rows left out, repeats once, at least one, at most the
 * service's limit, each an absolute URI. Whether one is acceptable (https, or http on a loopback
 * host; no fragment) the authorization server decides, and the form shows its reason.
 */
function decideWebApp(name: string, rows: readonly string[]): ApiClientFormDecision {
  const uris = [...new Set(rows.map((row) => row.trim()).filter((row) => row.length > 0))];
  if (uris.length === 0) return refuse('redirectUris', t.apiClients.redirectRequired);
  if (uris.length > MAX_REDIRECT_URIS) {
    return refuse('redirectUris', t.apiClients.tooManyRedirects(MAX_REDIRECT_URIS));
  }
  const bad = uris.find((uri) => URL.parse(uri) === null);
  if (bad !== undefined) return refuse('redirectUris', t.apiClients.badRedirect(bad));
  return { ok: true, body: { kind: 'web', name, redirectUris: uris } };
}
