import { describe, expect, it } from 'vitest';
import { useTestServer } from './harness.ts';

const server = useTestServer();

describe('GET /metrics (authorization server)', () => {
  it('is served on the management listener and times public endpoints by path, never raw URLs', async () => {
    expect((await fetch(`${server.publicUrl}/.well-known/openid-configuration`)).status).toBe(200);
    expect((await fetch(`${server.publicUrl}/no/such/path?code=secret-ish`)).status).toBe(404);
    const res = await fetch(`${server.management}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /http_request_duration_seconds_count\{[^}]*listener="public"[^}]*route="\/\.well-known\/openid-configuration"[^}]*\} 1/,
    );
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="unmatched"[^}]*status_code="404"/);
    expect(text).not.toContain('secret-ish');
    expect(text).toContain('service="oauth2"');
  });

  it('is served neither on the public listener nor on the admin listener', async () => {
    for (const base of [server.publicUrl, server.admin]) {
      const res = await fetch(`${base}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain('http_request_duration_seconds');
    }
  });
});
