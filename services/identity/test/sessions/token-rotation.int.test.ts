import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCodeAt } from '../../src/strategies/totp/totp.ts';
import {
  Browser,
  createUser,
  linkTotp,
  csrfOf,
  login,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../harness.ts';

// A session token copied while the session was at aal1 (a shoulder-surfed cookie, a leaked log
// line) must not become an aal2 token when the owner adds or passes the second factor.

interface Flow {
  id: string;
  ui: { nodes: { attributes: object }[] };
}

const COOKIE = 'ory_kratos_session';
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

async function whoamiWith(token: string) {
  return fetch(`${h.publicUrl}/sessions/whoami`, { headers: { 'x-session-token': token } });
}

describe('session token rotation', () => {
  it('the session token rotates when adding the second factor raises the assurance level', async () => {
    const email = 'rotate-link@example.com';
    await createUser(h, email);
    const b = new Browser(h.publicUrl);
    expect((await login(b, email)).status).toBe(200);
    const before = b.cookies.get(COOKIE)!;
    const { res } = await linkTotp(h, b);
    expect(res.status, res.text).toBe(200);
    const after = b.cookies.get(COOKIE)!;
    expect(after).not.toBe(before);
    expect((await whoamiWith(before)).status).toBe(401);
    const who = await whoamiWith(after);
    expect(who.status).toBe(200);
    expect(
      ((await who.json()) as { authenticator_assurance_level: string }).authenticator_assurance_level,
    ).toBe('aal2');
  });

  it('the session token rotates when the second factor is passed at sign-in', async () => {
    const email = 'rotate-login@example.com';
    await createUser(h, email);
    const setup = new Browser(h.publicUrl);
    await login(setup, email);
    const { secret } = await linkTotp(h, setup);
    h.clock.advance(60_000);

    const b = new Browser(h.publicUrl);
    expect((await login(b, email)).status).toBe(422);
    const aal1Token = b.cookies.get(COOKIE)!;
    const flow = await startFlow<Flow>(b, 'login', '?aal=aal2');
    const done = await submitFlow(b, 'login', flow, {
      method: 'totp',
      totp_code: totpCodeAt(secret, h.clock.now()),
      csrf_token: csrfOf(flow),
    });
    expect(done.status, done.text).toBe(200);
    const aal2Token = b.cookies.get(COOKIE)!;
    expect(aal2Token).not.toBe(aal1Token);
    expect((await whoamiWith(aal1Token)).status).toBe(401);
    expect((await whoamiWith(aal2Token)).status).toBe(200);
  });
});
