import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimStack, type ScimStack } from './scim-harness.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

let stack: ScimStack;
beforeAll(async () => {
  stack = await startScimStack('scim-metrics.test');
}, 60_000);
afterAll(async () => stack?.close());

async function scimCalls(): Promise<Map<string, number>> {
  const text = await (await fetch(`${stack.svc.managementUrl}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^users_scim_requests_total\{([^}]*)\} (\d+)$/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    out.set(`${labels.method} ${labels.route} ${labels.outcome}`, Number(m[2]));
  }
  return out;
}

describe('SCIM calls on the management listener', () => {
  it('are counted by method, route pattern and outcome, never with the token, a user id or an address', async () => {
    const before = await scimCalls();
    const created = await stack.scim('POST', '/Users', {
      schemas: [USER],
      userName: 'grace@scim-metrics.test',
      name: { givenName: 'Grace', familyName: 'Hopper' },
      emails: [{ value: 'grace@scim-metrics.test', primary: true }],
      active: true,
    });
    expect(created.status).toBe(201);
    expect((await stack.scim('GET', `/Users/${created.body.id}`)).status).toBe(200);
    expect((await stack.scim('GET', '/Users', undefined, { token: 'not-a-token' })).status).toBe(401);
    expect((await stack.scim('PATCH', `/Users/${created.body.id}`, { schemas: ['x'] })).status).toBe(400);

    const after = await scimCalls();
    const moved = (key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);
    expect(moved('POST /scim/v2/Users success')).toBe(1);
    expect(moved('GET /scim/v2/Users/:id success')).toBe(1);
    expect(moved('GET /scim/v2/Users unauthenticated')).toBe(1);
    expect(moved('PATCH /scim/v2/Users/:id refused')).toBe(1);

    const text = await (await fetch(`${stack.svc.managementUrl}/metrics`)).text();
    for (const secret of [stack.scimToken, created.body.id as string, 'grace@scim-metrics.test'])
      expect(text).not.toContain(secret);
  });
});
