import { startDroppingServer, type DroppingServer } from '@acme/test-kit/dropping-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createIdentityAdminClient } from './admin-client.ts';

let server: DroppingServer | undefined;
afterEach(() => server?.close());

/** An identity admin API whose first `drop` requests lose their connection unanswered; then 404s. */
async function adminApi(drop: number): Promise<DroppingServer> {
  server = await startDroppingServer(drop, {
    status: 404,
    body: '{"error":{"code":404,"message":"not found"}}',
  });
  return server;
}

describe('the identity admin client (the user service reading sessions at every refresh)', () => {
  // A rolling restart behind the load balancer: its reload closes the kept-alive connection a
  // refresh's session check is sent on; the refresh answered temporarily_unavailable for it.
  it('rolling restart: a read whose connection is closed before any answer is sent once more and answered', async () => {
    const api = await adminApi(1);
    await expect(createIdentityAdminClient({ baseUrl: api.url }).getSession('s')).resolves.toBeNull();
    expect(api.calls()).toBe(2);
  });

  it('a POST (creating an identity) is never sent twice', async () => {
    const api = await adminApi(1);
    const client = createIdentityAdminClient({ baseUrl: api.url });
    await expect(client.createIdentity({} as never)).rejects.toMatchObject({ detail: 'is unreachable' });
    expect(api.calls()).toBe(1);
  });
});
