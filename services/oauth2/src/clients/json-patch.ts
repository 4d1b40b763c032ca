import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';

/**
 * JSON Patch (RFC 6902) over a JSON document: add, remove, replace, move, copy, test. Pure: the
 * input is not changed; the patched copy is returned. A malformed patch, a path that does not exist
 * or a failed `test` throws `JsonPatchError`, and nothing is applied.
 */

export class JsonPatchError extends Error {}

const Operation = z.discriminatedUnion('op', [
  z.object({ op: z.literal('add'), path: z.string(), value: z.unknown() }).strict(),
  z.object({ op: z.literal('remove'), path: z.string() }).strict(),
  z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() }).strict(),
  z.object({ op: z.literal('move'), path: z.string(), from: z.string() }).strict(),
  z.object({ op: z.literal('copy'), path: z.string(), from: z.string() }).strict(),
  z.object({ op: z.literal('test'), path: z.string(), value: z.unknown() }).strict(),
]);
const Patch = z.array(Operation).max(100);
type JsonPatch = z.infer<typeof Patch>;

type Json = unknown;
type Container = Record<string, Json> | Json[];

/** RFC 6901: `/a/b~1c/0` → ['a', 'b/c', '0']. */
function pointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new JsonPatchError(`${path} is not a JSON pointer`);
  return path
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw new JsonPatchError(`${path} is not a JSON pointer`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

const isContainer = (v: Json): v is Container => typeof v === 'object' && v !== null;

function index(array: Json[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return array.length;
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new JsonPatchError(`array index ${token} is invalid`);
  const i = Number(token);
  if (i > array.length || (!forAdd && i === array.length)) {
    throw new JsonPatchError(`array index ${token} is out of range`);
  }
  return i;
}

function parentOf(doc: Json, tokens: string[], path: string): { parent: Container; key: string } {
  let node = doc;
  for (const token of tokens.slice(0, -1)) {
    if (!isContainer(node)) throw new JsonPatchError(`${path} does not exist`);
    node = Array.isArray(node) ? node[index(node, token, false)] : own(node, token, path);
  }
  if (!isContainer(node)) throw new JsonPatchError(`${path} does not exist`);
  return { parent: node, key: tokens[tokens.length - 1]! };
}

function own(object: Record<string, Json>, key: string, path: string): Json {
  if (!Object.hasOwn(object, key)) throw new JsonPatchError(`${path} does not exist`);
  return object[key];
}

function get(doc: Json, path: string): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) return doc;
  const { parent, key } = parentOf(doc, tokens, path);
  return Array.isArray(parent) ? parent[index(parent, key, false)] : own(parent, key, path);
}

function add(doc: Json, path: string, value: Json): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(index(parent, key, true), 0, value);
  else parent[key] = value;
  return doc;
}

function remove(doc: Json, path: string): Json {
  const tokens = pointer(path);
  if (tokens.length === 0) throw new JsonPatchError('the whole document cannot be removed');
  const { parent, key } = parentOf(doc, tokens, path);
  if (Array.isArray(parent)) parent.splice(index(parent, key, false), 1);
  else {
    own(parent, key, path);
    delete parent[key];
  }
  return doc;
}

/** Parses a patch; throws JsonPatchError when it is not one. */
export function parseJsonPatch(body: unknown): JsonPatch {
  const parsed = Patch.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
    throw new JsonPatchError(`the body is not a JSON Patch document${where}`);
  }
  return parsed.data;
}

/** Applies `patch` to a copy of `document`. */
export function applyJsonPatch<T>(document: T, patch: JsonPatch): unknown {
  let doc: Json = structuredClone(document);
  for (const op of patch) {
    switch (op.op) {
      case 'add':
        doc = add(doc, op.path, structuredClone(op.value));
        break;
      case 'remove':
        doc = remove(doc, op.path);
        break;
      case 'replace':
        if (op.path === '') doc = structuredClone(op.value);
        else doc = add(remove(doc, op.path), op.path, structuredClone(op.value));
        break;
      case 'move': {
        if (op.path.startsWith(`${op.from}/`)) throw new JsonPatchError('a value cannot move into itself');
        const value = get(doc, op.from);
        doc = add(remove(doc, op.from), op.path, value);
        break;
      }
      case 'copy':
        doc = add(doc, op.path, structuredClone(get(doc, op.from)));
        break;
      case 'test':
        if (!isDeepStrictEqual(get(doc, op.path), op.value)) {
          throw new JsonPatchError(`test failed at ${op.path}`);
        }
        break;
    }
  }
  return doc;
}
