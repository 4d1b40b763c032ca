import type { ScimGroupMapping, ScimRole, ScimSettings } from './console-client.ts';
import { consoleCopy as t } from './copy.ts';
import { isScopeGroupName, MAX_GROUPS, MAX_NAME } from './decide-api-client-form.ts';

// The Provisioning (SCIM) section, pure: what the token form and the group mapping editor send, or
// why not (the user service checks the same again), and what a refused call means to the admin.

/** The user service's limit of live SCIM tokens per organisation. */
const MAX_SCIM_TOKENS = 5;
/** The user service's limit of group mappings per organisation. */
const MAX_MAPPINGS = 100;
/** A directory group's display name: Entra and Okta allow 256 characters. */
const MAX_GROUP_NAME = 256;

export type ScimTokenNameDecision = { ok: true; name: string } | { ok: false; error: string };

export function decideScimTokenName(input: string): ScimTokenNameDecision {
  const name = input.trim();
  if (name.length === 0) return { ok: false, error: t.scim.tokens.nameRequired };
  if (name.length > MAX_NAME) return { ok: false, error: t.scim.tokens.nameTooLong(MAX_NAME) };
  return { ok: true, name };
}

/** One row of the editor as typed: `none` is no role; `more` the extra scope groups, comma-separated. */
export interface MappingRow {
  group: string;
  role: ScimRole | 'none';
  scopeGroups: string[];
  more: string;
}

export type GroupMappingsDecision =
  | { ok: true; body: { groupMappings: ScimGroupMapping[] } }
  | { ok: false; error: string; rowErrors: string[][] };

const splitGroups = (text: string) => text.split(/[\s,]+/).filter((g) => g.length > 0);

export function decideGroupMappings(rows: readonly MappingRow[]): GroupMappingsDecision {
  if (rows.length > MAX_MAPPINGS) {
    return { ok: false, error: t.scim.mappings.tooMany(MAX_MAPPINGS), rowErrors: rows.map(() => []) };
  }
  const names = rows.map((r) => r.group.trim());
  const seen = names.map((n) => n.toLowerCase());
  const rowErrors = rows.map((row, i) => {
    const errors: string[] = [];
    const name = names[i]!;
    if (name.length === 0) errors.push(t.scim.mappings.groupRequired);
    else if (name.length > MAX_GROUP_NAME) errors.push(t.scim.mappings.groupTooLong(MAX_GROUP_NAME));
    else if (seen.indexOf(name.toLowerCase()) !== i) errors.push(t.scim.mappings.duplicate);
    const groups = [...new Set([...row.scopeGroups, ...splitGroups(row.more)])];
    const bad = groups.find((g) => !isScopeGroupName(g));
    if (bad !== undefined) errors.push(t.scim.mappings.badScopeGroup(bad));
    else if (groups.length > MAX_GROUPS) errors.push(t.scim.mappings.tooManyScopeGroups(MAX_GROUPS));
    else if (row.role === 'none' && groups.length === 0) errors.push(t.scim.mappings.grantsNothing);
    return errors;
  });
  if (rowErrors.some((e) => e.length > 0)) return { ok: false, error: t.scim.mappings.invalid, rowErrors };
  return {
    ok: true,
    body: {
      groupMappings: rows.map((row, i) => ({
        group: names[i]!,
        role: row.role === 'none' ? null : row.role,
        scopeGroups: [...new Set([...row.scopeGroups, ...splitGroups(row.more)])],
      })),
    },
  };
}

/**
 * A save the service refused: when its message names a mapping (`groupMappings.<n>.<field>: …`, e.g.
 * a scope group the organisation does not have), the reason goes on that row; else on the form.
 */
export function decideMappingsRefusal(
  message: string,
  rowCount: number,
): { error: string; rowErrors: string[][] } {
  const named = /groupMappings\.(\d+)(?:\.\w+)*:\s*(.+)$/.exec(message);
  const index = named ? Number(named[1]) : -1;
  if (!named || index >= rowCount) return { error: message, rowErrors: [] };
  const rowErrors = Array.from({ length: rowCount }, (_, i) => (i === index ? [named[2]!] : []));
  return { error: t.scim.mappings.invalid, rowErrors };
}

/** The saved mappings as editor rows. */
export const mappingRows = (mappings: readonly ScimGroupMapping[]): MappingRow[] =>
  mappings.map((m) => ({
    group: m.group,
    role: m.role ?? 'none',
    scopeGroups: [...m.scopeGroups],
    more: '',
  }));

/**
 * The scope groups the editor offers as choices: the organisation's (when the service lists them)
 * and every one a mapping already grants, sorted.
 */
export function selectScopeGroupChoices(
  settings: Pick<ScimSettings, 'scopeGroups' | 'groupMappings'>,
): string[] {
  const all = [...settings.scopeGroups, ...settings.groupMappings.flatMap((m) => m.scopeGroups)];
  return [...new Set(all)].sort((a, b) => a.localeCompare(b));
}

/** What a member page change was, for the directory's refusals. */
export type MemberChange = 'role' | 'reactivate' | 'other';

/** A refused console call of the SCIM section or the member page: the message the admin reads. */
export function decideScimFailure(
  failure: { status: number | null; body: unknown; message: string },
  change: MemberChange = 'other',
): string {
  const code = (failure.body as { errorCode?: unknown } | null)?.errorCode;
  if (code === 'LIMIT_REACHED') return t.scim.tokens.limitReached(MAX_SCIM_TOKENS);
  if (failure.status === 409 && code === 'MANAGED_BY_DIRECTORY') {
    if (change === 'role') return t.scim.managedRefused;
    if (change === 'reactivate') return t.scim.removedByDirectory;
  }
  return failure.message;
}
