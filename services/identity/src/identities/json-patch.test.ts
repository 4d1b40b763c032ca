import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdentityError } from '../errors/identity-error.ts';
import { applyJsonPatch } from './json-patch.ts';

const HOSTILE = ['__proto__', 'constructor', 'prototype'];
const baseline = () => Object.getOwnPropertyNames(Object.prototype).sort();

function doc(): Record<string, unknown> {
  return {
    schema_id: 'default',
    state: 'active',
    traits: { email: 'a@example.com', name: { first: 'A', last: 'B' }, list: [1, { x: 2 }] },
    metadata_public: null,
    metadata_admin: { nested: { deep: true } },
  };
}

const segment = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.constantFrom('traits', 'name', 'list', 'metadata_admin', 'nested', '0', '1', '-', 'x', 'polluted'),
  fc.string({ maxLength: 6 }).map((s) => s.replace(/[~/]/g, '')),
);
const hostilePath = fc
  .tuple(
    fc.array(segment, { maxLength: 4 }),
    fc.constantFrom(...HOSTILE),
    fc.array(segment, { maxLength: 3 }),
  )
  .map(([a, h, b]) => `/${[...a, h, ...b].join('/')}`);
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true}}') as unknown),
  fc.constant(JSON.parse('{"constructor":{"prototype":{"polluted":true}}}') as unknown),
);
const op = fc.record({
  op: fc.constantFrom('add', 'replace', 'remove', 'test'),
  path: hostilePath,
  value,
});

describe('JSON Patch against prototype pollution', () => {
  it('prototype pollution through hostile JSON Patch paths is refused and leaves Object.prototype untouched', () => {
    const before = baseline();
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 4 }), (ops) => {
        let thrown: unknown;
        try {
          applyJsonPatch(doc(), ops);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(IdentityError);
        expect((thrown as IdentityError).status).toBe(400);
        expect(baseline()).toEqual(before);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(({} as Record<string, unknown>).x).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it('values carrying __proto__ keys stay data and never reach a shared prototype', () => {
    const before = baseline();
    const out = applyJsonPatch(doc(), [
      { op: 'add', path: '/metadata_public', value: JSON.parse('{"__proto__":{"polluted":true}}') },
      { op: 'add', path: '/traits/extra', value: JSON.parse('{"constructor":{"prototype":{"p":1}}}') },
    ]);
    expect(baseline()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.parse(JSON.stringify(out.metadata_public))).toEqual(
      JSON.parse('{"__proto__":{"polluted":true}}'),
    );
    expect(Object.getPrototypeOf(out)).toBeNull();
  });

  it('ordinary patches still work and never change the input document', () => {
    const input = doc();
    const out = applyJsonPatch(input, [
      { op: 'replace', path: '/traits/name/first', value: 'Z' },
      { op: 'add', path: '/traits/list/-', value: 3 },
      { op: 'remove', path: '/traits/list/0' },
      { op: 'add', path: '/metadata_admin/nested/new', value: { a: [1] } },
      { op: 'test', path: '/state', value: 'active' },
    ]);
    expect(JSON.parse(JSON.stringify(out))).toEqual({
      ...doc(),
      traits: { email: 'a@example.com', name: { first: 'Z', last: 'B' }, list: [{ x: 2 }, 3] },
      metadata_admin: { nested: { deep: true, new: { a: [1] } } },
    });
    expect(input).toEqual(doc());
  });
});
