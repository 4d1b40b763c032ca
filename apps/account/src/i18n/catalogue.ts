import { i18n, type Messages } from '@lingui/core';
import { DEFAULT_LOCALE } from '@acme/i18n';

// One catalogue per locale and area (the app, the signed-in shell, the consent screen, the console's
// sections), kept as nested objects whose leaves are ICU messages. The English catalogue is the source:
// its shape is the type every other locale's catalogue must fill exactly, and it declares which
// messages take values and in what order (`[message, ...names]`), so screens call them like functions.
// `vite build` compiles every message (catalogues.plugin.ts), so no ICU parser ships to the browser.

/** A message that takes values: its ICU text, then the names its positional arguments fill, in order. */
type Parametrised = readonly [message: string, ...names: string[]];
/** A message as `vite build` leaves it: compiled for Lingui, with its argument names when it has any. */
interface CompiledLeaf {
  readonly __icu: unknown;
  readonly args?: readonly string[];
}
export interface Catalogue {
  readonly [key: string]: string | Parametrised | Catalogue;
}

/** What a message is filled with: a number is formatted for the locale (`#` and `{n, number}`). */
type Value = string | number | boolean | null | undefined;

/** The English catalogue as the screens use it: a string per text, a function per parametrised one. */
export type Bound<T> = {
  readonly [K in keyof T]: T[K] extends string
    ? string
    : T[K] extends readonly [string, ...infer Names]
      ? (...values: { [I in keyof Names]: Value }) => string
      : Bound<T[K]>;
};

/** Another locale's catalogue: exactly the English keys (no more, no fewer), every leaf a message. */
export type Translation<T> = {
  readonly [K in keyof T]: T[K] extends string | Parametrised ? string : Translation<T[K]>;
};

function isCompiled(value: unknown): value is CompiledLeaf {
  return typeof value === 'object' && value !== null && '__icu' in value;
}

function isLeaf(value: unknown): boolean {
  return typeof value === 'string' || Array.isArray(value) || isCompiled(value);
}

/** A leaf's message (raw ICU text in tests and the dev server, compiled after `vite build`) and names. */
function leafOf(value: unknown): { message: unknown; names: readonly string[] | null } {
  if (typeof value === 'string') return { message: value, names: null };
  if (Array.isArray(value)) return { message: value[0], names: value.slice(1) as string[] };
  const compiled = value as CompiledLeaf;
  return { message: compiled.__icu, names: compiled.args ?? null };
}

/** Every message of a catalogue by its id (`area.section.key`). */
export function messagesOf(area: string, catalogue: object): Messages {
  const out: Messages = {};
  const walk = (prefix: string, node: object) => {
    for (const [key, value] of Object.entries(node)) {
      const id = `${prefix}.${key}`;
      if (isLeaf(value)) out[id] = leafOf(value).message as Messages[string];
      else walk(id, value as object);
    }
  };
  walk(area, catalogue);
  return out;
}

/**
 * A section is bound when it is first read: the app's catalogue has hundreds of texts, and binding
 * them all as the module loads was a long task of the login route's start on a slow phone, for
 * screens that page never shows.
 */
function bindNode(prefix: string, node: object): object {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const id = `${prefix}.${key}`;
    if (!isLeaf(value)) {
      let section: object | undefined;
      Object.defineProperty(out, key, {
        enumerable: true,
        get: () => (section ??= bindNode(id, value as object)),
      });
      continue;
    }
    const { message, names } = leafOf(value);
    // English is the fallback of a message another locale lacks (never the bare id).
    const fallback = { message } as { message?: string };
    if (names === null) {
      Object.defineProperty(out, key, { enumerable: true, get: () => i18n._(id, undefined, fallback) });
    } else {
      out[key] = (...values: Value[]) =>
        i18n._(id, Object.fromEntries(names.map((name, at) => [name, values[at]])), fallback);
    }
  }
  return Object.freeze(out);
}

/**
 * An area's English catalogue as the screens read it (`copy.login.email.title`): each read gives
 * the text in the active locale, so a screen rendered after a change of locale shows the new one.
 */
export function bindCatalogue<T extends Catalogue>(area: string, english: T): Bound<T> {
  i18n.load(DEFAULT_LOCALE, messagesOf(area, english));
  if (!i18n.locale) i18n.activate(DEFAULT_LOCALE);
  return bindNode(area, english) as Bound<T>;
}

/** A bound catalogue with others as its sections (`consoleCopy.sso`), its getters kept as getters. */
export function withSections<T extends object, S extends Record<string, object>>(
  base: T,
  sections: S,
): T & S {
  const descriptors: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(base);
  for (const [key, value] of Object.entries(sections)) descriptors[key] = { value, enumerable: true };
  return Object.freeze(Object.defineProperties({}, descriptors)) as T & S;
}
