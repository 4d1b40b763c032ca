/**
 * Prototype pollution, refused twice over.
 *
 * 1. Every process runs with Node's `--disable-proto=delete`: `Object.prototype.__proto__` does not
 *    exist, so `obj['__proto__']` is an ordinary own property and can never reach the prototype
 *    that every object of the process shares. A process started without the flag removes the
 *    accessor itself, first thing, and says so.
 * 2. The flag does not cover `obj.constructor.prototype`, so no request may name
 *    `__proto__`, `constructor` or `prototype` as a key, nor as a segment of a dotted or
 *    slashed key (`"__proto__.x"`, `"traits.constructor.prototype"`): every service refuses such a
 *    request with a 400 in its own error shape, before any handler runs, and the code that expands
 *    dotted keys or follows paths checks again where it does so.
 */

/** Node's flag that removes `Object.prototype.__proto__`; in every command that starts a process. */
export const DISABLE_PROTO_FLAG = '--disable-proto=delete';

/** Property names that lead from an object to a prototype shared by the whole process. */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Where a key is split into the segments code may follow: `a.b`, `/a/b`, `a[b]`. */
const SEGMENT_SEPARATOR = /[./[\]]/;

/** Whether `name`, or any segment of it (split at `.`, `/`, `[` and `]`), is a prototype key. */
export function namesPrototypeKey(name: string): boolean {
  return PROTOTYPE_KEYS.has(name) || name.split(SEGMENT_SEPARATOR).some((s) => PROTOTYPE_KEYS.has(s));
}

/**
 * Whether any object key in `value`, at any depth, names a prototype key (see `namesPrototypeKey`).
 * Walked with a stack, not recursion, so that no nesting depth is out of its reach.
 */
export function containsPrototypeKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      // One at a time: spreading an array of a body's size into push() could exceed the argument limit.
      for (const item of next) pending.push(item);
      continue;
    }
    for (const key of Object.keys(next)) {
      if (namesPrototypeKey(key)) return true;
      pending.push((next as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/**
 * Whether JSON text parses to a value with a prototype key: why a JSON parser that refuses them
 * (Fastify's, through secure-json-parse) refused `text`, when it does not say.
 */
export function jsonNamesPrototypeKey(text: string): boolean {
  try {
    return containsPrototypeKey(JSON.parse(text));
  } catch {
    return false;
  }
}

/** The message every service gives (in its own error shape). */
export const PROTOTYPE_KEY_MESSAGE =
  'The request names a reserved key (__proto__, constructor or prototype), alone or as a segment of a dotted or slashed key.';

/** What a process started without the flag says on stderr (hardenPrototype). */
export const STARTED_WITHOUT_FLAG = `started without ${DISABLE_PROTO_FLAG}`;

/** Whether this process runs without `Object.prototype.__proto__` (the flag, or `hardenPrototype`). */
export function protoAccessorRemoved(): boolean {
  return !Object.hasOwn(Object.prototype, '__proto__');
}

/**
 * First thing in every entry point: when the process was started without `--disable-proto=delete`,
 * warns (one JSON line on stderr) and removes `Object.prototype.__proto__` itself, as the flag would.
 */
export function hardenPrototype(
  name: string,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): void {
  if (protoAccessorRemoved()) return;
  log(
    JSON.stringify({
      level: 'warn',
      name,
      msg: `${STARTED_WITHOUT_FLAG}: Object.prototype.__proto__ is removed now instead`,
    }),
  );
  delete (Object.prototype as { __proto__?: unknown }).__proto__;
}

/**
 * `key in obj` for data from a request, which the lint rule refuses: true for an own property only,
 * never for one inherited from a prototype, and it narrows a union of shapes as `in` does.
 */
export function hasOwnKey<T extends object, K extends PropertyKey>(
  obj: T,
  key: K,
): obj is Extract<T, Partial<Record<K, unknown>>> & Record<K, unknown> {
  return Object.hasOwn(obj, key);
}
