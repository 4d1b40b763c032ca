import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findIdentityIdByIdentifier } from '../../src/identities/repo.ts';
import {
  Browser,
  createUser,
  csrfOf,
  startFlow,
  startHarness,
  submitFlow,
  type Harness,
} from '../harness.ts';
import { messages } from '../../src/ui/messages.ts';
import { inputNode } from '../../src/ui/nodes.ts';
import { knownStrategies } from '../../src/flows/registry.ts';
import type { Strategy } from '../../src/flows/strategy.ts';

// A new sign-in method is one strategy (this one lives only in this test) and one registry line.
const passphrase: Strategy = {
  method: 'passphrase',
  group: 'passphrase',
  accepts: (flow) => flow.requested_aal === 'aal1',
  nodes: () => [inputNode({ group: 'passphrase', name: 'passphrase', type: 'password', required: true })],
  async submit(_flow, input, { service }) {
    const id = await findIdentityIdByIdentifier(service.db, 'password', String(input.identifier ?? ''));
    if (!id || input.passphrase !== 'open sesame')
      return {
        type: 'flow_updated',
        messages: [{ pointer: '#/passphrase', message: messages.invalidCredentials() }],
      };
    return { type: 'success', identityId: id, method: 'passphrase' };
  },
};

// A redirecting method has the shape of OIDC: submit sends the browser to a provider, whose callback
// (an extra endpoint the strategy declares) finishes the login. The "provider" here is the test itself.
const elsewhere: Strategy = {
  method: 'elsewhere',
  group: 'elsewhere',
  accepts: (flow) => flow.requested_aal === 'aal1',
  nodes: () => [inputNode({ group: 'elsewhere', name: 'method', type: 'submit', value: 'elsewhere' })],
  submit: async (flow) => ({ type: 'location_change', to: `https://idp.example/authorize?state=${flow.id}` }),
  callbacks: [
    {
      method: 'GET',
      path: '/self-service/methods/elsewhere/callback',
      flowId: (input) => input.query.state,
      async handle(_flow, input, { service }) {
        const id = await findIdentityIdByIdentifier(service.db, 'password', input.query.subject ?? '');
        if (!id)
          return {
            type: 'flow_updated',
            messages: [{ pointer: '#/', message: messages.invalidCredentials() }],
          };
        return { type: 'success', identityId: id, method: 'elsewhere' };
      },
    },
  ],
};

describe('adding a method: one strategy and one registry line', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(
      { IDENTITY_METHODS: 'password,totp,code,profile,passphrase,elsewhere' },
      undefined,
      { strategies: { ...knownStrategies, login: [...knownStrategies.login, passphrase, elsewhere] } },
    );
    await createUser(h, 'ada@example.com');
  });
  afterAll(() => h.close());

  it('the new method adds its nodes to login flows and signs in over HTTP', async () => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<{ id: string; ui: { nodes: { group: string }[] } }>(b, 'login');
    expect(flow.ui.nodes.map((n) => n.group)).toEqual([
      'default',
      'default',
      'password',
      'password',
      'passphrase',
      'elsewhere',
    ]);
    const csrf_token = csrfOf(flow as never);
    const wrong = await submitFlow(b, 'login', flow, {
      method: 'passphrase',
      identifier: 'ada@example.com',
      passphrase: 'guess',
      csrf_token,
    });
    expect(wrong.status).toBe(400);
    const node = wrong.body.ui.nodes.find(
      (n: { attributes: { name?: string } }) => n.attributes.name === 'passphrase',
    );
    expect(node.messages.map((m: { id: number }) => m.id)).toEqual([4000006]);

    const ok = await submitFlow(b, 'login', flow, {
      method: 'passphrase',
      identifier: 'ada@example.com',
      passphrase: 'open sesame',
      csrf_token,
    });
    expect(ok.status).toBe(200);
    expect(ok.body.session.authentication_methods.map((m: { method: string }) => m.method)).toEqual([
      'passphrase',
    ]);
  });

  it('the CSRF check still guards the new method', async () => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<{ id: string }>(b, 'login');
    const res = await submitFlow(b, 'login', flow, {
      method: 'passphrase',
      identifier: 'ada@example.com',
      passphrase: 'open sesame',
    });
    expect(res.status).toBe(403);
    expect(res.body.error.id).toBe('security_csrf_violation');
  });

  it('a redirecting method: 422 for JSON, 303 for forms; its callback finishes the login', async () => {
    const b = new Browser(h.publicUrl);
    const flow = await startFlow<{ id: string }>(b, 'login');
    const csrf_token = csrfOf(flow as never);
    const json = await submitFlow(b, 'login', flow, { method: 'elsewhere', csrf_token });
    expect(json.status).toBe(422);
    expect(json.body.error.id).toBe('browser_location_change_required');
    expect(json.body.redirect_browser_to).toBe(`https://idp.example/authorize?state=${flow.id}`);
    const form = await b.post(`/self-service/login?flow=${flow.id}`, {
      form: { method: 'elsewhere', csrf_token },
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe(`https://idp.example/authorize?state=${flow.id}`);

    const unknown = await b.get(
      `/self-service/methods/elsewhere/callback?state=${flow.id}&subject=eve@example.com`,
      {
        accept: 'json',
      },
    );
    expect(unknown.status).toBe(400);
    const back = await b.get(
      `/self-service/methods/elsewhere/callback?state=${flow.id}&subject=ada@example.com`,
    );
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe(h.config.defaultReturnUrl);
    const whoami = await b.get('/sessions/whoami', { accept: 'json' });
    expect(whoami.body.authentication_methods.map((m: { method: string }) => m.method)).toEqual([
      'elsewhere',
    ]);
  });

  it('a callback for an unknown flow is 404; an unconfigured method is a start error', async () => {
    const b = new Browser(h.publicUrl);
    const res = await b.get('/self-service/methods/elsewhere/callback?state=nope', { accept: 'json' });
    expect(res.status).toBe(404);
    await expect(startHarness({ IDENTITY_METHODS: 'password,nonesuch' })).rejects.toThrow(/nonesuch/);
  });
});
