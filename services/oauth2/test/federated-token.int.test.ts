import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { adminJson, exchangeCode, introspect, signIn, useTestServer } from './harness.ts';

const server = useTestServer();
const PATH = '/admin/oauth2/federated-tokens';
const M365_EXT = { user: { authenticationMode: 'm365' }, products: ['MAGIC'], scopeGroups: ['research'] };

describe('federated tokens (admin API)', () => {
  it('issues an access token with the same keys, issuer and claim shape as the code flow', async () => {
    const issued = await adminJson(server, 'POST', PATH, {
      subject: 'identity-m365',
      client_id: 'magic',
      session: { access_token: M365_EXT, id_token: { email: 'megan@contoso.test' } },
    });
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'openid' });
    const token = String(issued.body.access_token);

    const jwks = createRemoteJWKSet(new URL(`${server.publicUrl}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: server.issuer,
      typ: 'at+jwt',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      sub: 'identity-m365',
      client_id: 'magic',
      aud: ['urn:acme:api'],
      scp: ['openid'],
      ext: M365_EXT,
    });
    expect(payload.exp! - payload.iat!).toBe(600);

    // Same header and claim names as a token of the authorization-code flow.
    const { callback, verifier } = await signIn(server);
    const exchanged = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    const codeToken = String(exchanged.body.access_token);
    expect(Object.keys(decodeJwt(token)).sort()).toEqual(Object.keys(decodeJwt(codeToken)).sort());
    expect(decodeProtectedHeader(token).kid).toBe(decodeProtectedHeader(codeToken).kid);

    const active = await introspect(server, token);
    expect(active.body).toMatchObject({ active: true, sub: 'identity-m365', ext: M365_EXT });
    const userinfo = await fetch(`${server.publicUrl}/userinfo`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await userinfo.json()).toMatchObject({ sub: 'identity-m365', email: 'megan@contoso.test' });
  });

  it('refuses an unknown client and malformed bodies', async () => {
    const unknown = await adminJson(server, 'POST', PATH, {
      subject: 'x',
      client_id: 'nope',
      session: { access_token: {} },
    });
    expect(unknown).toMatchObject({ status: 400, body: { error: 'invalid_client' } });
    for (const body of [
      {},
      { subject: 'x', client_id: 'magic' },
      { subject: '', client_id: 'magic', session: { access_token: {} } },
    ]) {
      const res = await adminJson(server, 'POST', PATH, body);
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    }
    const raw = await fetch(`${server.admin}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"subject":',
    });
    expect(raw.status).toBe(400);
  });
});
