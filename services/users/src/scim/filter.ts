import { parse, type Filter } from 'scim2-parse-filter';
import { ScimError } from './errors.ts';

/**
 * Translates a SCIM filter, parsed by `scim2-parse-filter`, into the few equality conditions this
 * server answers (a conjunction). Anything else is 400 `invalidFilter`: we never guess.
 * Users: `userName eq`, `externalId eq`, `id eq`, `emails.value eq`, `emails[type eq "work"].value eq`.
 * Groups: `displayName eq`, `externalId eq`, `id eq`, `members[value eq "…"]`.
 */
export type Condition =
  | { field: 'userName' | 'externalId' | 'id' | 'displayName'; value: string }
  | { field: 'member'; value: string };

type Kind = 'User' | 'Group';

const FIELDS: Record<Kind, Record<string, Condition['field']>> = {
  User: { username: 'userName', externalid: 'externalId', id: 'id', 'emails.value': 'userName' },
  Group: { displayname: 'displayName', externalid: 'externalId', id: 'id' },
};

const invalidFilter = (detail: string) => new ScimError(400, detail, 'invalidFilter');

function stringEq(f: Filter): { path: string; value: string } | null {
  if (f.op !== 'eq' || !('compValue' in f) || typeof f.compValue !== 'string') return null;
  return { path: f.attrPath.toLowerCase(), value: f.compValue };
}

function translate(kind: Kind, f: Filter, out: Condition[]): void {
  if (f.op === 'and' && 'filters' in f) {
    for (const part of f.filters) translate(kind, part, out);
    return;
  }
  if (f.op === '[]' && 'valFilter' in f) {
    const path = f.attrPath.toLowerCase();
    const inner = stringEq(f.valFilter);
    // The only address is the work one: `emails[type eq "work"]` holds for every person.
    if (
      kind === 'User' &&
      path === 'emails' &&
      inner?.path === 'type' &&
      inner.value.toLowerCase() === 'work'
    ) {
      return;
    }
    if (kind === 'User' && path === 'emails' && inner?.path === 'value') {
      out.push({ field: 'userName', value: inner.value });
      return;
    }
    if (kind === 'Group' && path === 'members' && inner?.path === 'value') {
      out.push({ field: 'member', value: inner.value });
      return;
    }
    throw invalidFilter(`This server does not filter on ${f.attrPath}[…] this way.`);
  }
  const eq = stringEq(f);
  const field = eq && Object.hasOwn(FIELDS[kind], eq.path) ? FIELDS[kind][eq.path] : undefined;
  if (!eq || !field) {
    throw invalidFilter(
      kind === 'User'
        ? 'Supported filters: userName eq, externalId eq, id eq, emails[type eq "work"].value eq (joined by and).'
        : 'Supported filters: displayName eq, externalId eq, id eq, members[value eq …] (joined by and).',
    );
  }
  out.push({ field, value: eq.value });
}

/** The conditions of `filter` (none when absent). */
export function scimFilter(kind: Kind, filter: string | undefined): Condition[] {
  if (filter === undefined || filter.trim() === '') return [];
  let ast: Filter;
  try {
    ast = parse(filter);
  } catch {
    throw invalidFilter('The filter is not valid SCIM filter syntax (RFC 7644 §3.4.2.2).');
  }
  const out: Condition[] = [];
  translate(kind, ast, out);
  return out;
}
