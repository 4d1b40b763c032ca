import { describe, expect, it } from 'vitest';
import { adminJson, exchangeCode, refresh, signIn, useTestServer } from './harness.ts';

// A person's connected applications (Hydra's consent sessions of a subject) and their revocation,
// for the account page's "Connected apps".

const server = useTestServer();

describe('consent sessions of a subject', () => {
  it('lists the grants of the subject only, and revoking one ends its tokens', async () => {
    const { callback, verifier } = await signIn(server, { subject: 'person-a' });
    const tokens = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    await signIn(server, { subject: 'person-b' });

    const listed = await fetch(`${server.admin}/admin/oauth2/auth/sessions/consent?subject=person-a`);
    expect(listed.status).toBe(200);
    const sessions = (await listed.json()) as {
      consent_request: { subject: string; client: { client_id: string; client_name: string } };
      grant_scope: string[];
      handled_at: string;
    }[];
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.consent_request).toEqual({
      subject: 'person-a',
      client: { client_id: 'platform', client_name: 'Platform' },
    });
    expect(sessions[0]!.grant_scope).toEqual(expect.arrayContaining(['openid', 'offline_access']));

    const revoked = await adminJson(
      server,
      'DELETE',
      '/admin/oauth2/auth/sessions/consent?subject=person-a&client=platform',
    );
    expect(revoked.status).toBe(204);
    const again = await refresh(server, tokens.body.refresh_token as string);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    const after = await fetch(`${server.admin}/admin/oauth2/auth/sessions/consent?subject=person-a`);
    expect(await after.json()).toEqual([]);
    // The other person's grant stays.
    const other = await fetch(`${server.admin}/admin/oauth2/auth/sessions/consent?subject=person-b`);
    expect(await other.json()).toHaveLength(1);
  });

  it('bad input gets the OAuth2 error, never a 5xx', async () => {
    expect((await adminJson(server, 'GET', '/admin/oauth2/auth/sessions/consent')).body.error).toBe(
      'invalid_request',
    );
    const noClient = await adminJson(server, 'DELETE', '/admin/oauth2/auth/sessions/consent?subject=x');
    expect(noClient.status).toBe(400);
    expect(noClient.body.error).toBe('invalid_request');
    const long = await adminJson(
      server,
      'GET',
      `/admin/oauth2/auth/sessions/consent?subject=${'x'.repeat(300)}`,
    );
    expect(long.status).toBe(400);
  });
});
