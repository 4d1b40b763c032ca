import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/** The answers these tests read fields of. */
type Answer = { status: number; body: { errorCode?: string; enabled?: boolean } };

/**
 * The console's self sign-up section (issue 25, ManageOrganisationSettings): an organisation's own
 * admin opens or closes self sign-up for its domains, with the operator's setting, refusal and event.
 */
describe('console API: self sign-up', () => {
  let stack: ConsoleStack;
  let acme = '';
  let globex = '';
  const tokens: Record<string, string> = {};
  const people: Record<string, { id: string; identityId: string }> = {};
  const path = (org = acme) => `/console/organisations/${org}/self-signup`;
  const operator = (method: string, org: string, json?: unknown) =>
    http(`${stack.svc.adminUrl}/admin/organisations/${org}/self-signup`, {
      method,
      ...(json === undefined ? {} : { json }),
    }) as Promise<Answer>;
  const events = async (org = acme) =>
    (
      await stack.call(
        tokens.ada,
        'GET',
        `/console/organisations/${org}/events?type=organisation.self_signup_changed`,
      )
    ).body.events;

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    globex = await stack.newOrganisation('globex.test');
    people.ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    people.grace = await stack.newUser(acme, 'acme.test', 'admin');
    people.mel = await stack.newUser(acme, 'acme.test', 'member');
    people.gus = await stack.newUser(globex, 'globex.test', 'org-admin');
    for (const [name, person] of Object.entries(people)) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
  }, 60_000);
  afterAll(async () => stack?.close());
  // Each test starts in a fresh console rate-limit window.
  beforeEach(() => stack.clock.freshWindow(60_000));

  it('an org-admin turns self sign-up on and off for its domains; each change is an event with the admin as actor', async () => {
    const before = await stack.call(tokens.ada, 'GET', path());
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      organisationId: acme,
      enabled: false,
      domains: ['acme.test'],
      blockedBy: null,
    });
    expect((await http(`${stack.svc.adminUrl}/admin/signup`)).body).toEqual({ open: false });

    const on = await stack.call(tokens.ada, 'PUT', path(), { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ organisationId: acme, enabled: true, domains: ['acme.test'], blockedBy: null });
    // The one setting: the operator's view and the identity service's question see it.
    expect((await operator('GET', acme)).body).toEqual({ organisationId: acme, enabled: true });
    expect((await http(`${stack.svc.adminUrl}/admin/signup`)).body).toEqual({ open: true });
    expect(await events()).toEqual([
      expect.objectContaining({
        type: 'organisation.self_signup_changed',
        actorKind: 'person',
        actorId: people.ada!.id,
        details: { enabled: 'true' },
      }),
    ]);

    // Saving the same value again records nothing; turning it off (a second later) does.
    expect((await stack.call(tokens.ada, 'PUT', path(), { enabled: true })).status).toBe(200);
    stack.clock.advance(1_000);
    const off = await stack.call(tokens.ada, 'PUT', path(), { enabled: false });
    expect(off.body.enabled).toBe(false);
    expect((await events()).map((e: { details: unknown }) => e.details)).toEqual([
      { enabled: 'false' },
      { enabled: 'true' },
    ]);
  });

  it('abuse: a member or an admin without ManageOrganisationSettings can neither read nor change it', async () => {
    for (const name of ['mel', 'grace']) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { enabled: true }],
      ] as const) {
        const res = await stack.call(tokens[name], method, path(), body);
        expect(res.status, `${name} ${method}`).toBe(403);
        expect(res.body).toEqual({
          errorCode: 'PERMISSION_DENIED',
          message: 'This needs the ManageOrganisationSettings permission.',
        });
      }
    }
    expect((await operator('GET', acme)).body.enabled).toBe(false);
    const none = await stack.call(undefined, 'PUT', path(), { enabled: true });
    expect(none.status).toBe(401);
    expect(none.body.errorCode).toBe('UNAUTHENTICATED');
  });

  it("abuse: another organisation's admin can neither read nor open this organisation's sign-up", async () => {
    const read = await stack.call(tokens.gus, 'GET', path(acme));
    expect(read.status).toBe(403);
    expect(read.body).toEqual({
      errorCode: 'FORBIDDEN',
      message: 'You can only manage your own organisation.',
    });
    const write = await stack.call(tokens.gus, 'PUT', path(acme), { enabled: true });
    expect(write.status).toBe(403);
    expect(write.body.errorCode).toBe('FORBIDDEN');
    expect((await operator('GET', acme)).body.enabled).toBe(false);
    expect(await events(acme)).toEqual([expect.anything(), expect.anything()]);
  });

  it('abuse: an organisation that enforces SSO can not turn self sign-up on from the console (the reason is given); turning it off still works', async () => {
    // Open first (by the operator), then the organisation enforces SSO: sign-up is blocked.
    expect((await operator('PUT', globex, { enabled: true })).status).toBe(200);
    const sso = await http(`${stack.svc.adminUrl}/admin/organisations/${globex}/sso`, {
      method: 'PUT',
      json: {
        provider: 'globex',
        issuer: 'https://idp.globex.test',
        clientId: 'acme-platform',
        clientSecret: 'client-secret-1',
        enforce: true,
      },
    });
    expect(sso.status).toBe(200);

    const view = await stack.call(tokens.gus, 'GET', path(globex));
    expect(view.body).toEqual({
      organisationId: globex,
      enabled: false,
      domains: ['globex.test'],
      blockedBy: 'sso',
    });
    const refused = await stack.call(tokens.gus, 'PUT', path(globex), { enabled: true });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      errorCode: 'SELF_SIGNUP_NOT_ALLOWED',
      message: expect.stringContaining('enforces single sign-on'),
      reason: 'sso',
    });
    // The operator is refused the same way (one predicate).
    const operatorRefused = await operator('PUT', globex, { enabled: true });
    expect(operatorRefused.status).toBe(403);
    expect(operatorRefused.body.errorCode).toBe('SELF_SIGNUP_NOT_ALLOWED');
    expect((await http(`${stack.svc.adminUrl}/admin/signup`)).body).toEqual({ open: false });

    const off = await stack.call(tokens.gus, 'PUT', path(globex), { enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, blockedBy: 'sso' });
  });

  it('bad input gets 400 {errorCode, message} (413 when oversized), never a 500, and changes nothing', async () => {
    const send = (body: string, org = acme) =>
      http(`${stack.svc.publicUrl}${path(org)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json' },
        body,
      }) as Promise<Answer>;
    for (const body of [
      '{"enabled":',
      '{}',
      '{"enabled":"yes"}',
      '{"enabled":1}',
      '{"enabled":true,"organisationId":"x"}',
      '{"enabled\\u0000":true}',
      '"\\u0000"',
      '[]',
    ]) {
      const res = await send(body);
      expect(res.status, body).toBe(400);
      expect(res.body).toEqual({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
    }
    const big = await send(JSON.stringify({ enabled: true, pad: 'x'.repeat(2_000_000) }));
    expect(big.status).toBe(413);
    expect(big.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
    const notAnId = await send('{"enabled":true}', 'not-a-uuid');
    expect(notAnId.status).toBe(400);
    expect(notAnId.body.errorCode).toBe('INVALID_REQUEST');
    expect((await operator('GET', acme)).body.enabled).toBe(false);
  });

  it('parallel saves: of 50 at once that turn it on, exactly one records the change', async () => {
    const org = await stack.newOrganisation('parallel.test');
    const admin = await stack.newUser(org, 'parallel.test', 'org-admin');
    const token = await stack.tokenFor(admin.identityId);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => stack.call(token, 'PUT', path(org), { enabled: true })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(answers.every((a) => a.body.enabled === true)).toBe(true);
    expect((await operator('GET', org)).body.enabled).toBe(true);
    const changes = await stack.call(
      token,
      'GET',
      `/console/organisations/${org}/events?type=organisation.self_signup_changed`,
    );
    expect(changes.body.events).toEqual([
      expect.objectContaining({ actorId: admin.id, details: { enabled: 'true' } }),
    ]);
  });

  it('the operator path is unchanged: {organisationId, enabled}, and its event has the operator as actor', async () => {
    const on = await operator('PUT', acme, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body).toEqual({ organisationId: acme, enabled: true });
    expect((await operator('GET', acme)).body).toEqual({ organisationId: acme, enabled: true });
    expect((await events())[0]).toMatchObject({ actorKind: 'operator', details: { enabled: 'true' } });
    expect((await stack.call(tokens.ada, 'GET', path())).body.enabled).toBe(true);
    expect((await operator('PUT', acme, { enabled: false })).body.enabled).toBe(false);
  });
});
