import { startDroppingServer, type DroppingServer } from '@acme/test-kit/dropping-server';
import { afterEach, describe, expect, it } from 'vitest';
import { requestJson } from './http-json.ts';

let server: DroppingServer | undefined;
afterEach(() => server?.close());

/** A service whose first `drop` requests lose their connection unanswered. */
async function service(drop: number): Promise<DroppingServer> {
  server = await startDroppingServer(drop, { status: 200, body: '{"ok":true}' });
  return server;
}

describe('requestJson (the user service calling the services it depends on)', () => {
  // A rolling restart behind the load balancer: its reload closes the kept-alive connection a call
  // is sent on (a consent's skip check failed so: "The identity service is unreachable").
  it.each(['GET', 'PUT', 'DELETE'] as const)(
    'rolling restart: a %s whose connection is closed before any answer is sent once more and answered',
    async (method) => {
      const s = await service(1);
      await expect(requestJson('identity service', s.url, { method, timeoutMs: 2000 })).resolves.toEqual({
        status: 200,
        body: { ok: true },
      });
      expect(s.calls()).toBe(2);
    },
  );

  it('a POST (which may not be received twice) is not sent again: 502 UPSTREAM_ERROR after one attempt', async () => {
    const s = await service(1);
    await expect(
      requestJson('identity service', s.url, { method: 'POST', body: {}, timeoutMs: 2000 }),
    ).rejects.toMatchObject({ errorCode: 'UPSTREAM_ERROR' });
    expect(s.calls()).toBe(1);
  });

  it('only once: a service that keeps dropping the connection is UPSTREAM_ERROR after two attempts', async () => {
    const s = await service(5);
    await expect(
      requestJson('identity service', s.url, { method: 'GET', timeoutMs: 2000 }),
    ).rejects.toMatchObject({
      errorCode: 'UPSTREAM_ERROR',
    });
    expect(s.calls()).toBe(2);
  });
});
