import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestUsersService } from './harness.ts';

let service: TestUsersService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

describe('GET /metrics (user service)', () => {
  it('is served on the management listener with request durations by route pattern', async () => {
    expect((await fetch(`${service.publicUrl}/login/config?emailAddress=a@b.test`)).status).toBe(200);
    const res = await fetch(`${service.managementUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE event_loop_delay_seconds gauge');
    const line = text
      .split('\n')
      .find(
        (l) =>
          l.startsWith('http_request_duration_seconds_count{') &&
          l.includes('listener="public"') &&
          l.includes('route="/login/config"'),
      );
    expect(line).toContain('service="users"');
    expect(line?.endsWith(' 1')).toBe(true);
    expect(text).not.toContain('emailAddress');
  });

  it('is served neither on the public listener nor on the admin listener', async () => {
    for (const base of [service.publicUrl, service.adminUrl]) {
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('http_request_duration_seconds');
    }
  });
});
