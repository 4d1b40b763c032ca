import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createIdentityAdminClient,
  IdentityAdminError,
  type IdentityAdminClient,
} from '@acme/identity-contract/admin-client';
import { Browser, DEMO_PASSWORD, login, startHarness, traits, type Harness } from './harness.ts';

const KEY = 'client-test-admin-key-0123456789abcdef';

let h: Harness;
let client: IdentityAdminClient;
beforeAll(async () => {
  h = await startHarness({ IDENTITY_ADMIN_KEY: KEY });
  client = createIdentityAdminClient({ baseUrl: h.adminUrl, adminKey: KEY });
});
afterAll(() => h.close());

/** A password identity with a verified address, made through the client; its id. */
async function createUser(email: string): Promise<string> {
  const created = await client.createIdentity({
    schema_id: 'default',
    traits: traits(email),
    credentials: { password: { config: { password: DEMO_PASSWORD } } },
    verifiable_addresses: [{ value: email, via: 'email', verified: true }],
  });
  return created.id;
}

/** The error a call threw (the test fails when it did not throw one). */
async function failure(call: Promise<unknown>): Promise<IdentityAdminError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IdentityAdminError);
  return error as IdentityAdminError;
}

describe('@acme/identity-contract/admin-client against the admin API', () => {
  it('creates, reads, finds, patches and deletes an identity', async () => {
    const created = await client.createIdentity({
      schema_id: 'default',
      traits: traits('client@example.com'),
      credentials: { password: { config: { password: DEMO_PASSWORD } } },
      verifiable_addresses: [{ value: 'client@example.com', via: 'email', verified: false }],
    });
    expect(created.traits).toMatchObject({ email: 'client@example.com' });
    expect(created.verifiable_addresses?.[0]).toMatchObject({ value: 'client@example.com', verified: false });

    expect((await client.getIdentity(created.id))?.id).toBe(created.id);
    const found = await client.listIdentities({ credentialsIdentifier: 'CLIENT@example.com' });
    expect(found.map((i) => i.id)).toEqual([created.id]);
    expect(await client.listIdentities({ credentialsIdentifier: 'nobody@example.com' })).toEqual([]);

    const patched = await client.patchIdentity(created.id, [
      { op: 'replace', path: '/traits/onboarding/tosAccepted', value: false },
    ]);
    expect(patched?.traits).toMatchObject({ onboarding: { tosAccepted: false } });

    expect(await client.deleteIdentity(created.id)).toBe(true);
    expect(await client.getIdentity(created.id)).toBeNull();
    expect(await client.deleteIdentity(created.id)).toBe(false);
  });

  it('throws IdentityAdminError with the status and the reason for refusals', async () => {
    await client.createIdentity({ schema_id: 'default', traits: traits('twice@example.com') });
    const twice = await failure(
      client.createIdentity({ schema_id: 'default', traits: traits('twice@example.com') }),
    );
    expect(twice.status).toBe(409);
    expect(twice.message).toBe('The identity service answered 409 when creating an identity.');

    const invalid = await failure(
      client.createIdentity({ schema_id: 'default', traits: { email: 'not an address' } }),
    );
    expect(invalid.status).toBe(400);
    expect(invalid.reason).toBeTruthy();

    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await failure(client.patchIdentity(unknown, []))).status).toBe(404);
    expect((await failure(client.createRecoveryCode({ identityId: unknown }))).status).toBe(404);
  });

  it('issues a recovery code and ends recovery flows', async () => {
    const id = await createUser('recover-client@example.com');
    const code = await client.createRecoveryCode({ identityId: id, expiresIn: '48h' });
    expect(code.code).toMatch(/^\d{6}$/);
    expect(new URL(code.link).searchParams.get('flow')).toBe(code.flowId);
    expect(await client.endRecoveryFlows(id)).toBe(true);
    expect(await client.endRecoveryFlows('00000000-0000-4000-8000-000000000000')).toBe(false);
  });

  it('reads a session with its identity and revokes the identity’s sessions', async () => {
    const id = await createUser('session-client@example.com');
    const signedIn = await login(new Browser(h.publicUrl), 'session-client@example.com');
    expect(signedIn.status).toBe(200);
    const sessionId = signedIn.body.session.id as string;

    const session = await client.getSession(sessionId);
    expect(session).toMatchObject({ id: sessionId, active: true, identity: { id } });
    expect(await client.deleteSessions(id)).toBe(true);
    expect(await client.getSession(sessionId)).toBeNull();
    expect(await client.deleteSessions('00000000-0000-4000-8000-000000000000')).toBe(false);
  });

  it('sends the admin key, and reports an unreachable service without a status', async () => {
    const keyless = createIdentityAdminClient({ baseUrl: h.adminUrl });
    expect((await failure(keyless.listIdentities())).status).toBe(401);

    const away = createIdentityAdminClient({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 2000 });
    const unreachable = await failure(away.getIdentity('x'));
    expect(unreachable.status).toBeUndefined();
    expect(unreachable.message).toBe('The identity service is unreachable.');
  });
});
