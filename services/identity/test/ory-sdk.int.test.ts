import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Configuration,
  FrontendApi,
  IdentityApi,
  OAuth2Api,
  type ContinueWithSetOrySessionToken,
  type GenericError,
} from '@ory/client';
import { exchangeCode, signIn, startServer, type TestServer } from '../../oauth2/test/harness.ts';
import { DEMO_PASSWORD, createUser, lastCode, startHarness, traits, type Harness } from './harness.ts';

/**
 * Ory's own SDK (`@ory/client`, as Kratos- and Hydra-compatible clients use it) against the real
 * identity service and authorization server: `FrontendApi` runs native login, settings, recovery and
 * logout; `IdentityApi` the admin identity, session and import routes; `OAuth2Api` the client routes,
 * a client-credentials token and its introspection. A failing call surfaces the SDK's own error.
 */

let h: Harness;
let oauth2: TestServer;
let frontend: FrontendApi;
let identities: IdentityApi;
let hydraAdmin: OAuth2Api;
beforeAll(async () => {
  [h, oauth2] = await Promise.all([startHarness(), startServer()]);
  frontend = new FrontendApi(new Configuration({ basePath: h.publicUrl }));
  identities = new IdentityApi(new Configuration({ basePath: h.adminUrl }));
  hydraAdmin = new OAuth2Api(new Configuration({ basePath: oauth2.admin }));
});
afterAll(async () => {
  await Promise.all([h.close(), oauth2.close()]);
  await oauth2.db.close();
});

/** What the SDK rejects a call with: its axios error, carrying the answer with Kratos's or Hydra's body. */
interface SdkError {
  isAxiosError: true;
  response?: { status: number; data: { error: GenericError | string } };
}

/** The SDK's rejection of a call. */
async function sdkError(call: Promise<unknown>): Promise<SdkError> {
  const e = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  // The SDK's own axios error (by axios's flag: the SDK may carry its own copy of axios).
  expect((e as SdkError | undefined)?.isAxiosError, String(e)).toBe(true);
  return e as SdkError;
}

async function nativeLogin(identifier: string, password = DEMO_PASSWORD): Promise<string> {
  const { data: flow } = await frontend.createNativeLoginFlow();
  const { data } = await frontend.updateLoginFlow({
    flow: flow.id,
    updateLoginFlowBody: { method: 'password', identifier, password },
  });
  return data.session_token!;
}

describe('FrontendApi', () => {
  it('login, settings (a new password), whoami and logout', async () => {
    await createUser(h, 'sdk-front@example.com');
    const token = await nativeLogin('sdk-front@example.com');
    const { data: session } = await frontend.toSession({ xSessionToken: token });
    expect(session.identity?.traits.email).toBe('sdk-front@example.com');

    const { data: settings } = await frontend.createNativeSettingsFlow({ xSessionToken: token });
    const { data: saved } = await frontend.updateSettingsFlow({
      flow: settings.id,
      xSessionToken: token,
      updateSettingsFlowBody: { method: 'password', password: 'changed through the sdk 2026' },
    });
    expect(saved.state).toBe('success');
    const again = await nativeLogin('sdk-front@example.com', 'changed through the sdk 2026');

    await frontend.performNativeLogout({ performNativeLogoutBody: { session_token: again } });
    const refused = await sdkError(frontend.toSession({ xSessionToken: again }));
    expect(refused.response?.status).toBe(401);
    expect(refused.response?.data.error).toMatchObject({ code: 401 });
  });

  it('recovery by code: the session token and a settings flow come back in continue_with', async () => {
    await createUser(h, 'sdk-recover@example.com');
    const { data: flow } = await frontend.createNativeRecoveryFlow();
    const { data: sent } = await frontend.updateRecoveryFlow({
      flow: flow.id,
      updateRecoveryFlowBody: { method: 'code', email: 'sdk-recover@example.com' },
    });
    expect(sent.state).toBe('sent_email');
    const { data: done } = await frontend.updateRecoveryFlow({
      flow: flow.id,
      updateRecoveryFlowBody: { method: 'code', code: lastCode(h, 'sdk-recover@example.com') },
    });
    const set = done.continue_with?.find((c) => c.action === 'set_ory_session_token') as
      ContinueWithSetOrySessionToken | undefined;
    const { data: session } = await frontend.toSession({ xSessionToken: set!.ory_session_token });
    expect(session.authentication_methods?.[0]?.method).toBe('code_recovery');
  });

  it('abuse: a wrong password is the SDK error carrying the flow (400)', async () => {
    await createUser(h, 'sdk-wrong@example.com');
    const { data: flow } = await frontend.createNativeLoginFlow();
    const e = await sdkError(
      frontend.updateLoginFlow({
        flow: flow.id,
        updateLoginFlowBody: {
          method: 'password',
          identifier: 'sdk-wrong@example.com',
          password: 'nope nope',
        },
      }),
    );
    expect(e.response?.status).toBe(400);
    expect((e.response?.data as unknown as { id: string }).id).toBe(flow.id);
  });
});

describe('IdentityApi', () => {
  it('create, list, patch; the session routes; the batch import', async () => {
    const { data: created } = await identities.createIdentity({
      createIdentityBody: {
        schema_id: 'default',
        traits: traits('sdk-admin@example.com'),
        credentials: { password: { config: { password: DEMO_PASSWORD } } },
        verifiable_addresses: [
          { value: 'sdk-admin@example.com', verified: true, via: 'email', status: 'completed' },
        ],
      },
    });
    const { data: found } = await identities.listIdentities({
      credentialsIdentifier: 'sdk-admin@example.com',
    });
    expect(found.map((i) => i.id)).toEqual([created.id]);
    const { data: patched } = await identities.patchIdentity({
      id: created.id,
      jsonPatch: [{ op: 'replace', path: '/metadata_public', value: { plan: 'team' } }],
    });
    expect(patched.metadata_public).toEqual({ plan: 'team' });

    const token = await nativeLogin('sdk-admin@example.com');
    const { data: mine } = await identities.listIdentitySessions({ id: created.id });
    expect(mine).toHaveLength(1);
    const sid = mine[0]!.id;
    const { data: all } = await identities.listSessions({ active: true, expand: ['identity'] });
    expect(all.find((s) => s.id === sid)?.identity?.id).toBe(created.id);
    const { data: one } = await identities.getSession({ id: sid, expand: ['devices'] });
    expect(one.devices).toHaveLength(1);
    h.clock.advance(60_000);
    const extended = await identities.extendSession({ id: sid });
    expect(extended.status).toBe(204);
    expect(new Date((await identities.getSession({ id: sid })).data.expires_at!).getTime()).toBeGreaterThan(
      new Date(one.expires_at!).getTime(),
    );
    await identities.disableSession({ id: sid });
    expect((await sdkError(frontend.toSession({ xSessionToken: token }))).response?.status).toBe(401);
    await nativeLogin('sdk-admin@example.com');
    await identities.deleteIdentitySessions({ id: created.id });
    expect((await identities.listIdentitySessions({ id: created.id, active: true })).data).toEqual([]);

    const { data: batch } = await identities.batchPatchIdentities({
      patchIdentitiesBody: {
        identities: [
          { create: { schema_id: 'default', traits: traits('sdk-import@example.com') } },
          { create: { schema_id: 'default', traits: traits('sdk-admin@example.com') } },
        ],
      },
    });
    expect(batch.identities?.map((r) => r.action)).toEqual(['create', 'error']);
    expect(batch.identities?.[1]?.error).toMatchObject({ code: 409 });
  });

  it('abuse: an unknown identity or session is the SDK error with Kratos’s 404', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const call of [
      () => identities.getIdentity({ id: unknown }),
      () => identities.getSession({ id: unknown }),
      () => identities.listIdentitySessions({ id: unknown }),
      () => identities.extendSession({ id: unknown }),
    ]) {
      const e = await sdkError(call());
      expect(e.response?.status).toBe(404);
      expect(e.response?.data.error).toMatchObject({ code: 404, status: 'Not Found' });
    }
  });
});

describe('OAuth2Api', () => {
  it('client routes, a client-credentials token, and introspection of a signed-in person’s tokens', async () => {
    const { data: client } = await hydraAdmin.createOAuth2Client({
      oAuth2Client: { client_name: 'sdk cron', grant_types: ['client_credentials'] },
    });
    expect(client.client_secret).toBeTruthy();
    const { data: got } = await hydraAdmin.getOAuth2Client({ id: client.client_id! });
    expect(got.client_name).toBe('sdk cron');
    const { data: listed } = await hydraAdmin.listOAuth2Clients({ clientName: 'sdk cron' });
    expect(listed.map((c) => c.client_id)).toEqual([client.client_id]);
    const { data: renamed } = await hydraAdmin.patchOAuth2Client({
      id: client.client_id!,
      jsonPatch: [{ op: 'replace', path: '/client_name', value: 'sdk nightly' }],
    });
    expect(renamed.client_name).toBe('sdk nightly');

    const publicApi = new OAuth2Api(
      new Configuration({
        basePath: oauth2.publicUrl,
        username: client.client_id!,
        password: client.client_secret!,
      }),
    );
    const { data: token } = await publicApi.oauth2TokenExchange({ grantType: 'client_credentials' });
    expect(token.token_type).toBe('Bearer');
    expect(token.access_token).toMatch(/^ey/);

    await hydraAdmin.deleteOAuth2Client({ id: client.client_id! });
    const gone = await sdkError(hydraAdmin.getOAuth2Client({ id: client.client_id! }));
    expect(gone.response?.status).toBe(404);

    // A person's tokens (authorization code with PKCE, which the SDK's token call cannot send).
    const { callback, verifier } = await signIn(oauth2, { subject: 'sdk-person' });
    const tokens = await exchangeCode(oauth2, callback.searchParams.get('code')!, verifier);
    const { data: access } = await hydraAdmin.introspectOAuth2Token({
      token: tokens.body.access_token as string,
    });
    expect(access).toMatchObject({
      active: true,
      sub: 'sdk-person',
      client_id: 'platform',
      token_use: 'access_token',
    });
    const { data: refresh } = await hydraAdmin.introspectOAuth2Token({
      token: tokens.body.refresh_token as string,
    });
    expect(refresh).toMatchObject({ active: true, sub: 'sdk-person', token_use: 'refresh_token' });
    expect((await hydraAdmin.introspectOAuth2Token({ token: 'ory_at_forged' })).data).toEqual({
      active: false,
    });
  });

  it('abuse: a wrong client secret is the SDK error with the OAuth error body', async () => {
    const { data: client } = await hydraAdmin.createOAuth2Client({
      oAuth2Client: { client_name: 'sdk wrong', grant_types: ['client_credentials'] },
    });
    const wrong = new OAuth2Api(
      new Configuration({
        basePath: oauth2.publicUrl,
        username: client.client_id!,
        password: 'not the secret',
      }),
    );
    const e = await sdkError(wrong.oauth2TokenExchange({ grantType: 'client_credentials' }));
    expect(e.response?.status).toBe(401);
    expect(e.response?.data.error).toBe('invalid_client');
  });
});
