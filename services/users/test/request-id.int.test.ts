import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingServer, startTestService, type RecordingServer, type TestUsersService } from './harness.ts';

// The authorization server's admin API, stood in by a recorder: the user service calls it to
// accept a logout, and must pass the caller's request id along.
let oauth2: RecordingServer;
let service: TestUsersService;
beforeAll(async () => {
  oauth2 = await recordingServer(() => ({ status: 200, body: { redirect_to: 'http://localhost:4000/' } }));
  service = await startTestService({ env: { OAUTH2_ADMIN_URL: oauth2.url } });
});
afterAll(async () => {
  await service.close();
  await oauth2.close();
});

describe('request ids across services', () => {
  it('forwards the incoming X-Request-Id on the call to the authorization server, and echoes it', async () => {
    const res = await fetch(`${service.publicUrl}/login/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'logout-chain-31c4d5e6' },
      body: JSON.stringify({ logoutChallenge: 'a'.repeat(32) }),
    });
    expect(res.status, await res.text()).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('logout-chain-31c4d5e6');
    expect(oauth2.requests).toHaveLength(1);
    expect(oauth2.requests[0]!.headers['x-request-id']).toBe('logout-chain-31c4d5e6');
  });

  it('forwards the generated id when the caller sent none', async () => {
    const res = await fetch(`${service.publicUrl}/login/logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logoutChallenge: 'b'.repeat(32) }),
    });
    expect(res.status).toBe(200);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(oauth2.requests.at(-1)!.headers['x-request-id']).toBe(id);
  });
});
