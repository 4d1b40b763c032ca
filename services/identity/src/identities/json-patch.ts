import { errors } from '../errors/identity-error.ts';

export interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

const FORBIDDEN = /^\/(id|created_at|updated_at|schema_url|state_changed_at)(\/|$)/;

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw errors.badRequest(`Invalid JSON pointer "${path.slice(0, 100)}".`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}

/** RFC 6902 add/remove/replace/test on a plain JSON document (returns a new document). */
export function applyJsonPatch(doc: Record<string, unknown>, ops: unknown): Record<string, unknown> {
  if (!Array.isArray(ops) || ops.length > 100)
    throw errors.badRequest('The body must be a JSON Patch array.');
  const out = structuredClone(doc);
  for (const raw of ops as PatchOp[]) {
    if (!raw || typeof raw !== 'object' || typeof raw.op !== 'string' || typeof raw.path !== 'string') {
      throw errors.badRequest('Each JSON Patch operation needs op and path.');
    }
    if (FORBIDDEN.test(raw.path)) throw errors.badRequest(`Patching ${raw.path} is not allowed.`);
    const parts = parsePointer(raw.path);
    if (parts.length === 0) throw errors.badRequest('Replacing the whole document is not allowed.');
    const last = parts[parts.length - 1]!;
    let parent: unknown = out;
    for (const p of parts.slice(0, -1)) {
      if (!isContainer(parent)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
      let next = (parent as Record<string, unknown>)[p];
      if (next === undefined && raw.op === 'add' && !Array.isArray(parent)) {
        next = {};
        (parent as Record<string, unknown>)[p] = next;
      }
      parent = next;
    }
    if (!isContainer(parent)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
    if (['__proto__', 'constructor', 'prototype'].includes(last)) throw errors.badRequest('Invalid path.');
    const arr = Array.isArray(parent) ? parent : undefined;
    const obj = parent as Record<string, unknown>;
    switch (raw.op) {
      case 'add':
        if (arr) {
          const i = last === '-' ? arr.length : Number(last);
          if (!Number.isInteger(i) || i < 0 || i > arr.length)
            throw errors.badRequest(`Bad array index in ${raw.path}.`);
          arr.splice(i, 0, raw.value);
        } else obj[last] = raw.value;
        break;
      case 'replace':
        if (!(last in obj)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
        obj[last] = raw.value;
        break;
      case 'remove':
        if (!(last in obj)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
        if (arr) arr.splice(Number(last), 1);
        else delete obj[last];
        break;
      case 'test':
        if (JSON.stringify(obj[last]) !== JSON.stringify(raw.value))
          throw errors.badRequest(`Test failed at ${raw.path}.`);
        break;
      default:
        throw errors.badRequest(`Unsupported JSON Patch operation "${String(raw.op).slice(0, 20)}".`);
    }
  }
  return out;
}
