import { scimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { z } from 'zod';
import { namesPrototypeKey } from '@acme/service-kit/prototype';
import { ScimError } from './errors.ts';
import { MAX_PATCH_OPERATIONS } from './limits.ts';

/**
 * PATCH (RFC 7644 §3.5.2) through `scim-patch`, after the forms real directories send are
 * normalised: Entra's capitalised `op` ("Replace"), dotted keys in a value object without a path
 * (`{"name.givenName": "Ada"}`), and attributes of extension schemas we do not keep (dropped).
 */
export const patchRequestSchema = z.object({
  schemas: z.array(z.string()).optional(),
  Operations: z
    .array(
      z.object({
        op: z.string().max(20),
        path: z.string().max(1000).optional(),
        value: z.unknown().optional(),
      }),
    )
    .min(1)
    .max(MAX_PATCH_OPERATIONS),
});

const EXTENSION = /^urn:/i;

/**
 * 400 `invalidPath` for an attribute path that names `__proto__`, `constructor` or `prototype`
 * (text in quotes, a filter's value, is not a path): followed by the expansion below or by
 * `scim-patch`, such a path writes to, or deletes from, the prototype of every object in the process.
 */
function refusePrototypePath(path: string): void {
  if (namesPrototypeKey(path.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) {
    throw new ScimError(
      400,
      'An attribute path may not name __proto__, constructor or prototype.',
      'invalidPath',
    );
  }
}

function expandDotted(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (EXTENSION.test(key)) continue;
    refusePrototypePath(key);
    const parts = key.split('.');
    let target = out;
    for (const part of parts.slice(0, -1)) {
      const next = target[part];
      target[part] = typeof next === 'object' && next !== null ? next : {};
      target = target[part] as Record<string, unknown>;
    }
    target[parts.at(-1)!] = v;
  }
  return out;
}

/**
 * Entra removes members by value (`{"op":"Remove","path":"members","value":[{"value":"id"}]}`):
 * one `members[value eq "id"]` removal per entry, so the match is by id, not by the whole object.
 */
function removalsByValue(path: string, value: unknown): ScimPatchOperation[] | null {
  if (!Array.isArray(value) || /[[\].]/.test(path)) return null;
  const ids = value.map((v) =>
    typeof v === 'object' && v !== null ? (v as { value?: unknown }).value : undefined,
  );
  if (!ids.every((id) => typeof id === 'string')) return null;
  return ids.map((id) => ({ op: 'remove' as const, path: `${path}[value eq ${JSON.stringify(id)}]` }));
}

function normalise(op: { op: string; path?: string | undefined; value?: unknown }): ScimPatchOperation[] {
  const kind = op.op.toLowerCase();
  if (kind !== 'add' && kind !== 'replace' && kind !== 'remove') {
    throw new ScimError(
      400,
      `Unknown PATCH op "${op.op.slice(0, 20)}" (add, replace or remove).`,
      'invalidSyntax',
    );
  }
  if (op.path !== undefined && EXTENSION.test(op.path)) return [];
  if (op.path !== undefined) refusePrototypePath(op.path);
  let value = op.value;
  if (op.path === undefined && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    value = expandDotted(value as Record<string, unknown>);
  }
  if (kind === 'remove') {
    const path = op.path ?? '';
    return (
      removalsByValue(path, value) ?? [{ op: 'remove', path, ...(value === undefined ? {} : { value }) }]
    );
  }
  return [{ op: kind, ...(op.path === undefined ? {} : { path: op.path }), value }];
}

/** The request's operations, normalised; 400 `invalidSyntax` for a body that is not a PatchOp. */
export function parsePatch(body: unknown): ScimPatchOperation[] {
  const parsed = patchRequestSchema.safeParse(body);
  if (!parsed.success) {
    throw new ScimError(
      400,
      `A PATCH body is {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], "Operations": [1 to ${MAX_PATCH_OPERATIONS} operations]}.`,
      'invalidSyntax',
    );
  }
  return parsed.data.Operations.flatMap(normalise);
}

/** Applies the operations to a copy of `resource`; the library's refusals become SCIM 400s. */
export function applyPatch<T extends ScimResource>(resource: T, operations: ScimPatchOperation[]): T {
  try {
    return scimPatch(resource, operations, { mutateDocument: false });
  } catch (error) {
    const code = (error as { scimCode?: unknown }).scimCode;
    const known = ['noTarget', 'invalidPath', 'invalidValue', 'invalidSyntax', 'invalidFilter'] as const;
    throw new ScimError(
      400,
      `The PATCH cannot be applied: ${String((error as Error).message).slice(0, 200)}`,
      known.find((k) => k === code) ?? 'invalidValue',
    );
  }
}

/** SCIM booleans as Entra sends them too ("True", "False"). */
export function scimBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return undefined;
}
