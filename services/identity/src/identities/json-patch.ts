import { errors } from '../errors/identity-error.ts';

interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
  from?: string;
}

const FORBIDDEN = /^\/(id|created_at|updated_at|schema_url|state_changed_at)(\/|$)/;

/**
 * Pointer segments that reach an object's prototype chain. A patch naming one of them anywhere in
 * its path could write onto `Object.prototype`, which every object of the process shares.
 */
const PROTOTYPE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw errors.badRequest(`Invalid JSON pointer "${path.slice(0, 100)}".`);
  const parts = path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts.some((p) => PROTOTYPE_SEGMENTS.has(p))) {
    throw errors.badRequest(
      'The JSON pointer names a reserved segment (__proto__, constructor or prototype).',
    );
  }
  return parts;
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}

/**
 * A deep copy of plain JSON in which every object has no prototype, so that no key, however
 * named, can reach a shared prototype while the patch is applied.
 */
function nullPrototypeCopy(value: unknown, depth = 0): unknown {
  if (depth > 64) throw errors.badRequest('The document is nested too deeply.');
  if (Array.isArray(value)) return value.map((v) => nullPrototypeCopy(v, depth + 1));
  if (!isContainer(value)) return value;
  const out = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    Object.defineProperty(out, key, {
      value: nullPrototypeCopy((value as Record<string, unknown>)[key], depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

const has = (obj: object, key: string) => Object.prototype.hasOwnProperty.call(obj, key);

/**
 * RFC 6902 add/remove/replace/test on a plain JSON document. Works on a null-prototype copy and
 * returns it; the input is never changed.
 */
export function applyJsonPatch(doc: Record<string, unknown>, ops: unknown): Record<string, unknown> {
  if (!Array.isArray(ops) || ops.length > 100)
    throw errors.badRequest('The body must be a JSON Patch array.');
  const out = nullPrototypeCopy(doc) as Record<string, unknown>;
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
      if (Array.isArray(parent) && !/^\d+$/.test(p))
        throw errors.badRequest(`Path ${raw.path} does not exist.`);
      let next = has(parent, p) ? (parent as Record<string, unknown>)[p] : undefined;
      if (next === undefined && raw.op === 'add' && !Array.isArray(parent)) {
        next = Object.create(null);
        (parent as Record<string, unknown>)[p] = next;
      }
      parent = next;
    }
    if (!isContainer(parent)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
    const arr = Array.isArray(parent) ? parent : undefined;
    const obj = parent as Record<string, unknown>;
    const value = raw.op === 'add' || raw.op === 'replace' ? nullPrototypeCopy(raw.value) : raw.value;
    switch (raw.op) {
      case 'add':
        if (arr) {
          const i = last === '-' ? arr.length : Number(last);
          if (!Number.isInteger(i) || i < 0 || i > arr.length)
            throw errors.badRequest(`Bad array index in ${raw.path}.`);
          arr.splice(i, 0, value);
        } else obj[last] = value;
        break;
      case 'replace':
        if (!has(obj, last)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
        obj[last] = value;
        break;
      case 'remove':
        if (!has(obj, last)) throw errors.badRequest(`Path ${raw.path} does not exist.`);
        if (arr) arr.splice(Number(last), 1);
        else delete obj[last];
        break;
      case 'test':
        if (!has(obj, last) || JSON.stringify(obj[last]) !== JSON.stringify(raw.value))
          throw errors.badRequest(`Test failed at ${raw.path}.`);
        break;
      default:
        throw errors.badRequest(`Unsupported JSON Patch operation "${String(raw.op).slice(0, 20)}".`);
    }
  }
  return out;
}
