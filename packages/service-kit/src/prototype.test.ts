import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { refusedInput } from './input.ts';
import {
  containsPrototypeKey,
  DISABLE_PROTO_FLAG,
  hasOwnKey,
  namesPrototypeKey,
  PROTOTYPE_KEY_MESSAGE,
  protoAccessorRemoved,
  STARTED_WITHOUT_FLAG,
} from './prototype.ts';
import { UNSTORABLE_TEXT_MESSAGE } from './text.ts';

const prototypeModule = fileURLToPath(new URL('./prototype.ts', import.meta.url));

/** A fresh Node process, with or without the flag, that runs `body` after importing prototype.ts. */
function run(flags: string[], body: string) {
  const script = `import { hardenPrototype } from ${JSON.stringify(prototypeModule)};\n${body}`;
  return spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('prototype keys', () => {
  it.each([
    '__proto__',
    'constructor',
    'prototype',
    '__proto__.x',
    'a.constructor.prototype',
    '/a/__proto__/b',
    'members[__proto__]',
  ])('names a prototype key: %j', (key) => expect(namesPrototypeKey(key)).toBe(true));
  it.each([
    '',
    'name.givenName',
    '/traits/email',
    'emails[type eq "work"]',
    '__proto',
    'constructors',
    'proto',
  ])('names none: %j', (key) => expect(namesPrototypeKey(key)).toBe(false));

  it('finds them as keys at any depth, in arrays too, and never in values', () => {
    expect(containsPrototypeKey(JSON.parse('{"__proto__":{"x":1}}'))).toBe(true);
    expect(containsPrototypeKey({ a: { constructor: { prototype: { x: 1 } } } })).toBe(true);
    expect(containsPrototypeKey({ Operations: [{ value: { '__proto__.polluted': 'yes' } }] })).toBe(true);
    expect(containsPrototypeKey({ path: '/__proto__/x', value: 'constructor' })).toBe(false);
    expect(containsPrototypeKey(['__proto__', { ok: true }])).toBe(false);
    // Deeper than any recursion limit: the walk has none.
    let deep: unknown = { 'a.prototype': 1 };
    for (let i = 0; i < 10_000; i++) deep = { n: deep };
    expect(containsPrototypeKey(deep)).toBe(true);
    // An array as long as a body limit allows.
    expect(containsPrototypeKey(new Array(500_000).fill(0))).toBe(false);
  });

  it('refusedInput names the first problem of a body, query or path parameters', () => {
    expect(refusedInput({ a: 1 }, { b: ['c'] })).toBeUndefined();
    expect(refusedInput({ a: 1 }, { 'x.__proto__': '1' })).toBe(PROTOTYPE_KEY_MESSAGE);
    expect(refusedInput({ a: 'nul\u0000' })).toBe(UNSTORABLE_TEXT_MESSAGE);
  });

  it('hasOwnKey reads own properties only, where `in` sees the prototype', () => {
    const body = JSON.parse('{"subject":"s"}') as { subject: string } | { method: 'm365'; subject: string };
    const proto = Object.getPrototypeOf(body) as Record<string, unknown>;
    expect(hasOwnKey(body, 'method')).toBe(false);
    expect(hasOwnKey(body, 'subject')).toBe(true);
    // What a polluted prototype would make of `'constructor' in body`:
    expect('constructor' in body).toBe(true);
    expect(hasOwnKey(body, 'constructor')).toBe(false);
    expect(proto).toBe(Object.prototype);
  });
});

describe('--disable-proto=delete', () => {
  it('is in effect in this test worker, as in every service process', () => {
    expect(process.execArgv).toContain(DISABLE_PROTO_FLAG);
    expect(protoAccessorRemoved()).toBe(true);
    expect((Object.prototype as { __proto__?: unknown }).__proto__).toBeUndefined();
    // `obj["__proto__"] = …` makes an own property, never a new prototype.
    const target: Record<string, unknown> = {};
    target['__proto__'] = { polluted: 'yes' };
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a process started without the flag warns and removes the accessor itself, first thing', () => {
    const r = run(
      [],
      `hardenPrototype('test-process');
console.log(JSON.stringify({ removed: !Object.hasOwn(Object.prototype, '__proto__') }));`,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ removed: true });
    expect(JSON.parse(r.stderr.trim())).toMatchObject({ level: 'warn', name: 'test-process' });
    expect(r.stderr).toContain(STARTED_WITHOUT_FLAG);
  });

  it('a process started with the flag says nothing', () => {
    const r = run(
      [DISABLE_PROTO_FLAG],
      `hardenPrototype('test-process');
console.log(JSON.stringify({ removed: !Object.hasOwn(Object.prototype, '__proto__') }));`,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ removed: true });
    expect(r.stderr).toBe('');
  });
});
