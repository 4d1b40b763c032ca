import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

describe('opaque origins on the public API', () => {
  let svc: TestUsersService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.close());

  it('a state-changing browser request with Origin: null is refused', async () => {
    for (const path of ['/terms/accept', '/git-auth/initialise', '/git-auth/complete', '/login/consent']) {
      const res = await http(`${svc.publicUrl}${path}`, {
        method: 'POST',
        headers: { origin: 'null', cookie: 'ory_kratos_session=x' },
        json: {},
      });
      expect(res.status, path).toBe(403);
      expect(res.body).toMatchObject({ errorCode: 'FORBIDDEN' });
    }
    // Without the opaque origin the request reaches the route (and fails there for its own reason).
    const res = await http(`${svc.publicUrl}/terms/accept`, { method: 'POST', json: {} });
    expect(res.status).not.toBe(403);
  });
});
