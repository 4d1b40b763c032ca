import { watchObjectPrototype, type PrototypeWatch } from '@acme/test-kit/prototype-watch';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http } from '../harness.ts';
import { startScimStack, type ScimStack } from './scim-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * The PATCH operations that reached `Object.prototype` of the whole process: a dotted key in a
 * path-less value (expanded segment by segment) and a path that `scim-patch` follows. The
 * `constructor.prototype` forms get past Node's `--disable-proto=delete`, which removes only
 * `__proto__`: the key check alone stops them.
 */
const ATTACKS: [string, unknown][] = [
  [
    'a path-less value with the key "__proto__.polluted"',
    { op: 'replace', value: { '__proto__.polluted': 'yes' } },
  ],
  [
    'a path-less value with the key "constructor.prototype.polluted"',
    { op: 'add', value: { 'constructor.prototype.polluted': 'yes' } },
  ],
  [
    'the path "constructor.prototype.polluted"',
    { op: 'add', path: 'constructor.prototype.polluted', value: 'yes' },
  ],
  ['the path "__proto__.polluted"', { op: 'replace', path: '__proto__.polluted', value: 'yes' }],
  [
    'the removal of "constructor.prototype.toString"',
    { op: 'remove', path: 'constructor.prototype.toString' },
  ],
  [
    'a nested value {"name":{"constructor":{"prototype":…}}}',
    { op: 'add', value: { name: { constructor: { prototype: { polluted: 'yes' } } } } },
  ],
];

describe('SCIM PATCH and the prototype every object shares', () => {
  let stack: ScimStack;
  let person: any;
  let group: any;
  let otherEmail = '';
  let otherOrg = '';
  let otherAdmin: { identityId: string };
  let watch: PrototypeWatch;

  beforeAll(async () => {
    stack = await startScimStack('pollution.test');
    const created = await stack.scim('POST', '/Users', { schemas: [USER], userName: 'ada@pollution.test' });
    expect(created.status).toBe(201);
    person = created.body;
    const made = await stack.scim('POST', '/Groups', { schemas: [GROUP], displayName: 'Engineers' });
    expect(made.status).toBe(201);
    group = made.body;
    // Another organisation, whose people must still sign in after the attack.
    otherOrg = await stack.newOrganisation('bystander.test');
    otherAdmin = await stack.newUser(otherOrg, 'bystander.test', 'org-admin');
    otherEmail = (otherAdmin as unknown as { email: string }).email;
  }, 60_000);
  beforeEach(() => {
    watch = watchObjectPrototype();
  });
  afterEach(() => watch.restore());
  afterAll(async () => stack?.close());

  it('a SCIM PATCH cannot pollute Object.prototype and take down sign-in', async () => {
    // Every attack is sent, and what each did is compared at the end: a failure shows them all.
    const outcomes: { what: string; status: number; scimType: unknown; prototype: string[] }[] = [];
    for (const [what, operation] of ATTACKS) {
      for (const path of [`/Users/${person.id}`, `/Groups/${group.id}`]) {
        const res = await stack.scim('PATCH', path, {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
          Operations: [operation],
        });
        outcomes.push({
          what: `${what} on ${path.split('/')[1]}`,
          status: res.status,
          scimType: res.body?.schemas?.[0] === ERROR ? res.body.scimType : '(not a SCIM error)',
          prototype: watch.changes(),
        });
        watch.restore();
      }
    }
    expect(outcomes).toEqual(
      outcomes.map(({ what }) => ({
        what,
        status: 400,
        scimType: expect.stringMatching(/^(invalidPath|invalidValue)$/),
        prototype: [],
      })),
    );

    // Everyone else's sign-in still works: the first step of sign-in, a token for another
    // organisation's admin and the console with it (every strict schema and the authorization
    // server's claims call on the way).
    const config = await http(
      `${stack.svc.publicUrl}/login/config?emailAddress=${encodeURIComponent(otherEmail)}`,
    );
    expect(config.status, JSON.stringify(config.body)).toBe(200);
    const token = await stack.tokenFor(otherAdmin.identityId);
    const members = await stack.call(token, 'GET', `/console/organisations/${otherOrg}/members`);
    expect(members.status, JSON.stringify(members.body)).toBe(200);
    // And SCIM itself: a dotted key that names an attribute is still expanded.
    const renamed = await stack.scim('PATCH', `/Users/${person.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { 'name.givenName': 'Ada' } }],
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name.givenName).toBe('Ada');
    expect(watch.changes()).toEqual([]);
  });
});
