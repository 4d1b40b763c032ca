import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Browser,
  DEMO_PASSWORD,
  createUser,
  csrfOf,
  login,
  startFlow,
  startHarness,
  submitFlow,
  traits,
  type Harness,
} from '../../harness.ts';

// Someone who learnt the old password (or stole a session cookie) must not keep their session once
// the owner changes the password, nor after an administrator resets it.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const NEW_PASSWORD = 'a brand new passphrase for 2026';

async function signedIn(email: string, password = DEMO_PASSWORD): Promise<Browser> {
  const b = new Browser(h.publicUrl);
  const res = await login(b, email, password);
  expect(res.status, res.text).toBe(200);
  return b;
}

const whoamiStatus = async (b: Browser) => (await b.get('/sessions/whoami', { accept: 'json' })).status;

describe('password change and sessions', () => {
  it("a stolen session ends when the owner changes the password; the owner's session stays", async () => {
    const email = 'change-ends@example.com';
    await createUser(h, email);
    const attacker = await signedIn(email);
    const otherDevice = await signedIn(email);
    const owner = await signedIn(email);

    const flow = await startFlow<{ id: string; ui: { nodes: { attributes: object }[] } }>(owner, 'settings');
    const changed = await submitFlow(owner, 'settings', flow, {
      method: 'password',
      password: NEW_PASSWORD,
      csrf_token: csrfOf(flow),
    });
    expect(changed.status, changed.text).toBe(200);

    expect(await whoamiStatus(attacker)).toBe(401);
    expect(await whoamiStatus(otherDevice)).toBe(401);
    expect(await whoamiStatus(owner)).toBe(200);
    // The old password no longer signs in; the new one does.
    expect((await login(new Browser(h.publicUrl), email)).status).toBe(400);
    expect(await whoamiStatus(await signedIn(email, NEW_PASSWORD))).toBe(200);
  });

  it('an administrator password reset ends every session of the identity', async () => {
    const email = 'admin-reset@example.com';
    const id = await createUser(h, email);
    const a = await signedIn(email);
    const b = await signedIn(email);
    const put = await fetch(`${h.adminUrl}/admin/identities/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_id: 'default',
        state: 'active',
        traits: traits(email),
        credentials: { password: { config: { password: NEW_PASSWORD } } },
      }),
    });
    expect(put.status, await put.text()).toBe(200);
    expect(await whoamiStatus(a)).toBe(401);
    expect(await whoamiStatus(b)).toBe(401);
    expect(await whoamiStatus(await signedIn(email, NEW_PASSWORD))).toBe(200);
  });

  it('an administrator update without a password leaves sessions alone', async () => {
    const email = 'admin-edit@example.com';
    const id = await createUser(h, email);
    const a = await signedIn(email);
    const put = await fetch(`${h.adminUrl}/admin/identities/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema_id: 'default',
        state: 'active',
        traits: traits(email, { name: { first: 'A', last: 'B' } }),
      }),
    });
    expect(put.status, await put.text()).toBe(200);
    expect(await whoamiStatus(a)).toBe(200);
  });
});
