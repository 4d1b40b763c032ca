import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PRODUCTION_EXAMPLE,
  PUBLIC_SITES,
  publicSites,
  renderNginxConfig,
  type NginxOptions,
} from './nginx.ts';
import { nginxBinary } from './nginx-process.ts';
import { repoRoot } from './processes.ts';

/** `nginx -t` on `config` in a scratch prefix with a throwaway certificate; its output and status. */
function nginxTest(config: string): { status: number | null; output: string } {
  const nginx = nginxBinary();
  if (!nginx)
    throw new Error('nginx is not installed (Debian: apt-get install nginx-light); npm test installs it');
  const dir = mkdtempSync(join(tmpdir(), 'nginx-t-'));
  try {
    mkdirSync(join(dir, 'tls'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=nginx-test', '-days', '1',
      '-keyout', join(dir, 'tls/privkey.pem'), '-out', join(dir, 'tls/fullchain.pem'),
    ], { stdio: 'ignore' }); // prettier-ignore
    writeFileSync(join(dir, 'nginx.conf'), config.replace('access_log /dev/stdout', 'access_log access.log'));
    const run = spawnSync(nginx, ['-t', '-q', '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], {
      encoding: 'utf8',
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const serverBlocks = (config: string) => config.split('\n  server {').slice(1);

describe('the nginx configuration', () => {
  it('docker/nginx.conf is the production example as generated now (run `npm run nginx:conf` after a change)', () => {
    const onDisk = readFileSync(join(repoRoot, 'docker/nginx.conf'), 'utf8');
    expect(onDisk).toBe(renderNginxConfig(PRODUCTION_EXAMPLE));
  });

  it('the production example passes nginx -t', () => {
    const result = nginxTest(renderNginxConfig(PRODUCTION_EXAMPLE));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('has a TLS server block with HTTP/2 and Strict-Transport-Security for each of the four services and eight apps', () => {
    const config = renderNginxConfig(PRODUCTION_EXAMPLE);
    const sites = serverBlocks(config).filter(
      (b) => b.includes('server_name ') && !b.includes('server_name _;'),
    );
    expect(sites.map((b) => /server_name (\S+);/.exec(b)?.[1])).toEqual(PUBLIC_SITES.map((s) => s.host));
    expect(PUBLIC_SITES.filter((s) => s.name.startsWith('account_'))).toHaveLength(8);
    for (const block of sites) {
      expect(block).toContain('listen 443 ssl http2;');
      expect(block).toMatch(/add_header Strict-Transport-Security "max-age=31536000" always;/);
      // Internal addresses are never revealed in production.
      expect(block).not.toContain('X-Upstream-Instance');
    }
    // Plain HTTP only redirects.
    expect(config).toContain('return 308 https://$host$request_uri;');
  });

  it("replaces the client's X-Forwarded-For, never appends to it, and clears X-Forwarded-Host", () => {
    const config = renderNginxConfig(PRODUCTION_EXAMPLE);
    expect(config).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(config).not.toMatch(/^\s*proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for/m);
    expect(config).toContain('proxy_set_header X-Forwarded-Host "";');
    // The access log has no query strings (codes, flow ids, state).
    expect(config).toContain('"$request_method $uri $server_protocol"');
    expect(config).not.toContain('$request_uri $server_protocol');
  });

  it('names instances by DNS name: looked up at start, or again while running through a resolver', () => {
    const names = (resolver?: string): NginxOptions => ({
      tls: { certificate: 'tls/fullchain.pem', key: 'tls/privkey.pem', hstsMaxAgeSeconds: 600 },
      ...(resolver ? { resolver } : {}),
      sites: publicSites((port, name) => [`${name.replaceAll('_', '-')}.acme.svc.cluster.local:${port}`]),
    });
    const atStart = renderNginxConfig(names());
    expect(atStart).toContain('server identity-public.acme.svc.cluster.local:4433 max_fails=2');
    expect(atStart).toContain('proxy_pass http://identity_public;');
    const whileRunning = renderNginxConfig(names('10.96.0.10'));
    expect(whileRunning).toContain('resolver 10.96.0.10 valid=10s ipv6=off;');
    expect(whileRunning).toContain(
      'set $identity_public_instance identity-public.acme.svc.cluster.local:4433;',
    );
    expect(whileRunning).toContain('proxy_pass http://$identity_public_instance;');
    expect(whileRunning).not.toContain('upstream identity_public');
    expect(whileRunning).toContain('Strict-Transport-Security "max-age=600"');
    // nginx accepts it (the resolver is asked only when a request comes).
    const result = nginxTest(whileRunning);
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('plain HTTP: each site on its own port, Host passed with its port, no TLS and no HSTS', () => {
    const config = renderNginxConfig({
      sites: publicSites((port) => [`127.0.0.1:${port + 10_000}`]),
      listenAddress: '0.0.0.0',
    });
    expect(config).toContain('listen 0.0.0.0:4433;');
    expect(config).toContain('server 127.0.0.1:14433 max_fails=2 fail_timeout=5s;');
    expect(config).toContain('proxy_set_header Host $http_host;');
    expect(config).not.toContain('ssl');
    expect(config).not.toContain('Strict-Transport-Security');
    expect(nginxTest(config).status).toBe(0);
  });

  it('keeps idle connections to an instance for less time than Node keeps them open (5 s)', () => {
    const timeouts = [...renderNginxConfig(PRODUCTION_EXAMPLE).matchAll(/^ {4}keepalive_timeout (\d+)s;$/gm)];
    expect(timeouts).toHaveLength(PUBLIC_SITES.length);
    for (const [, seconds] of timeouts) expect(Number(seconds)).toBeLessThan(5);
  });

  it('refuses sites it could not render into a working configuration', () => {
    const site = { name: 'ok', port: 1, servers: ['127.0.0.1:2'] };
    expect(() => renderNginxConfig({ sites: [] })).toThrow('no sites');
    expect(() => renderNginxConfig({ sites: [{ ...site, name: 'bad name;' }] })).toThrow('is not');
    expect(() => renderNginxConfig({ sites: [site, site] })).toThrow('two sites named ok');
    expect(() => renderNginxConfig({ sites: [{ ...site, servers: [] }] })).toThrow('no servers');
    expect(() => renderNginxConfig({ sites: [{ ...site, servers: ['a b:1'] }] })).toThrow('not host:port');
    expect(() => renderNginxConfig({ sites: [{ name: 'x', servers: ['a:1'] }] })).toThrow('needs a port');
    expect(() =>
      renderNginxConfig({ tls: { certificate: 'c', key: 'k' }, sites: [{ name: 'x', servers: ['a:1'] }] }),
    ).toThrow('needs a serverName');
  });
});
