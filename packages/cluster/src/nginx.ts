// The nginx configuration in front of the services, written once here for every place nginx runs:
// the production example `docker/nginx.conf` (TLS, one host name per site; generated from
// `PRODUCTION_EXAMPLE` by `npm run nginx:conf`, and a test fails when the file is stale), the
// scaled-out development system of `npm run start:cluster` and the cluster journeys (plain HTTP,
// one port per listener, `nginx-process.ts`), and the local deployment of the manifests.
import { PUBLIC_HOSTS, systemShape, USUAL_PORTS, type Listener } from '@acme/system-shape';

/** One site: the instances of one listener, and where nginx answers for it. */
export interface NginxSite {
  /** The upstream group's name: letters, digits and `_` (e.g. `identity_public`). */
  name: string;
  /**
   * The instances, `host:port`: addresses, or DNS names (looked up when nginx starts or reloads;
   * with {@link NginxOptions.resolver}, again while it runs).
   */
  servers: string[];
  /** Plain HTTP (no `tls`): the port nginx listens on for this site. */
  port?: number;
  /** TLS: the host name this site answers for (every site shares port 443, told apart by SNI). */
  serverName?: string;
  /** Idle kept-alive connections to the instances, per nginx worker (default 32). */
  keepalive?: number;
  /** Servers (of `servers`) taken out of rotation, e.g. an instance about to be restarted. */
  down?: string[];
  /** A comment above the site's server block. */
  comment?: string;
}

export interface NginxOptions {
  sites: NginxSite[];
  /**
   * TLS ends at nginx: each site on 443 with its `serverName`, HTTP/2, Strict-Transport-Security,
   * and port 80 redirecting to https. Without it, each site listens on its own `port` of
   * `listenAddress` with plain HTTP/1.1 (a development system, or behind another TLS terminator).
   */
  tls?: {
    /** Files, relative to the configuration's directory or absolute. */
    certificate: string;
    key: string;
    /** Strict-Transport-Security's max-age (default one year). */
    hstsMaxAgeSeconds?: number;
  };
  /** Plain HTTP: the address every site listens on (default `127.0.0.1`). */
  listenAddress?: string;
  /**
   * A DNS server (e.g. the cluster's, `kube-dns.kube-system.svc.cluster.local` or its address).
   * With one, a site whose single server is a DNS name is proxied through a variable, so that nginx
   * looks the name up again every `resolverValidSeconds` (a Service recreated with another address,
   * a headless Service's pods); such a site has no pool of kept-alive connections. Without one,
   * names are looked up when nginx starts and on `nginx -s reload`.
   */
  resolver?: string;
  resolverValidSeconds?: number;
  /** `auto` (one per core, default) or a number. */
  workerProcesses?: number | 'auto';
  /** Where the access log goes (default `/dev/stdout`); false: none. */
  accessLog?: string | false;
  /** Where errors go (default `stderr`). */
  errorLog?: string;
  /**
   * nginx runs from a scratch prefix (`nginx -p <dir>`) as any user: its pid file and temporary
   * files are under that directory instead of the system's paths.
   */
  scratch?: boolean;
  /**
   * Adds `X-Upstream-Instance` (the address of the instance that answered) to every answer: for
   * tests and development only, since it tells the world the instances' internal addresses.
   */
  revealUpstream?: boolean;
  /** Comment lines at the top of the file. */
  header?: string[];
}

/** Response header naming the instance (`host:port`) that answered, with `revealUpstream`. */
export const UPSTREAM_HEADER = 'x-upstream-instance';

/**
 * How long nginx keeps an idle connection to an instance: less than the instances' own idle timeout
 * (Node's HTTP server closes an idle kept-alive connection after 5 s), so that nginx never sends a
 * request down a connection the instance is closing at that moment (a POST would fail with 502).
 */
const UPSTREAM_IDLE_SECONDS = 4;
const DEFAULT_HSTS_SECONDS = 31_536_000;

const NAME = /^[A-Za-z0-9_]+$/;
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

function isDnsName(server: string): boolean {
  const host = server.slice(0, server.lastIndexOf(':'));
  return !IPV4.test(host) && !host.startsWith('[') && host !== 'localhost';
}

function check(options: NginxOptions): void {
  if (options.sites.length === 0) throw new Error('nginx: no sites');
  const names = new Set<string>();
  for (const site of options.sites) {
    if (!NAME.test(site.name)) throw new Error(`nginx: site name ${site.name} is not [A-Za-z0-9_]+`);
    if (names.has(site.name)) throw new Error(`nginx: two sites named ${site.name}`);
    names.add(site.name);
    if (site.servers.length === 0) throw new Error(`nginx: site ${site.name} has no servers`);
    for (const server of site.servers) {
      if (!HOST_PORT.test(server)) throw new Error(`nginx: ${server} (site ${site.name}) is not host:port`);
    }
    if (options.tls && !site.serverName) throw new Error(`nginx: site ${site.name} needs a serverName`);
    if (!options.tls && site.port === undefined) throw new Error(`nginx: site ${site.name} needs a port`);
  }
}

/** Whether the site's server is looked up while nginx runs (see `resolver`). */
function resolvedAtRunTime(site: NginxSite, options: NginxOptions): boolean {
  return options.resolver !== undefined && site.servers.length === 1 && isDnsName(site.servers[0]!);
}

function upstreamBlock(site: NginxSite): string[] {
  return [
    `  upstream ${site.name} {`,
    `    zone ${site.name} 64k;`,
    ...site.servers.map(
      (s) => `    server ${s} max_fails=2 fail_timeout=5s${site.down?.includes(s) ? ' down' : ''};`,
    ),
    `    keepalive ${site.keepalive ?? 32};`,
    `    keepalive_timeout ${UPSTREAM_IDLE_SECONDS}s;`,
    '  }',
  ];
}

function serverBlock(site: NginxSite, options: NginxOptions): string[] {
  const listen = options.tls
    ? ['    listen 443 ssl http2;', `    server_name ${site.serverName};`]
    : [`    listen ${options.listenAddress ?? '127.0.0.1'}:${site.port};`];
  // add_header in a block replaces the ones inherited from around it: each block has its own.
  const headers = [
    ...(options.tls
      ? [
          `    add_header Strict-Transport-Security "max-age=${options.tls.hstsMaxAgeSeconds ?? DEFAULT_HSTS_SECONDS}" always;`,
        ]
      : []),
    ...(options.revealUpstream ? ['    add_header X-Upstream-Instance $upstream_addr always;'] : []),
  ];
  const pass = resolvedAtRunTime(site, options)
    ? [
        // A variable makes nginx resolve the name at run time (through `resolver`).
        `      set $${site.name}_instance ${site.servers[0]};`,
        `      proxy_pass http://$${site.name}_instance;`,
      ]
    : [`      proxy_pass http://${site.name};`];
  return [
    ...(site.comment ? [`  # ${site.comment}`] : []),
    '  server {',
    ...listen,
    ...headers,
    '    location / {',
    ...pass,
    '    }',
    '  }',
  ];
}

/** The configuration file's text. */
export function renderNginxConfig(options: NginxOptions): string {
  check(options);
  const tls = options.tls;
  const lines: string[] = [
    ...(options.header ?? []).map((l) => (l ? `# ${l}` : '#')),
    ...(options.header?.length ? [''] : []),
    `worker_processes ${options.workerProcesses ?? 'auto'};`,
    `error_log ${options.errorLog ?? 'stderr'} warn;`,
    ...(options.scratch ? ['pid nginx.pid;'] : []),
    '',
    'events {',
    '  worker_connections 4096;',
    '}',
    '',
    'http {',
    '  server_tokens off;',
  ];
  if (options.scratch) {
    lines.push(
      '  # Temporary files under the prefix (nginx -p), not the system paths.',
      '  client_body_temp_path tmp/body;',
      '  proxy_temp_path tmp/proxy;',
      '  fastcgi_temp_path tmp/fastcgi;',
      '  uwsgi_temp_path tmp/uwsgi;',
      '  scgi_temp_path tmp/scgi;',
    );
  }
  lines.push(
    '  # A request id for every request: the one the client sent, else a new one. The services take',
    '  # it when well formed, log it with every line and send it on to each other.',
    '  map $http_x_request_id $acme_request_id {',
    '    default $http_x_request_id;',
    "    '' $request_id;",
    '  }',
  );
  if (options.accessLog === false) {
    lines.push('  access_log off;');
  } else {
    lines.push(
      '  # Query strings carry OAuth2 codes, flow ids and state: the access log has the path only.',
      `  log_format main '$remote_addr [$time_iso8601] "$request_method $uri $server_protocol" $status '`,
      `                  '$body_bytes_sent $request_time upstream=$upstream_addr id=$acme_request_id';`,
      `  access_log ${options.accessLog ?? '/dev/stdout'} main;`,
    );
  }
  lines.push(
    '',
    '  client_max_body_size 1m;',
    '  client_body_timeout 15s;',
    '  client_header_timeout 15s;',
    '  keepalive_timeout 65s;',
    '',
    '  # Every proxied request: HTTP/1.1 with an empty Connection header, so connections to the',
    '  # instances are kept alive (the `keepalive` pools below); the browser-facing Host is passed on',
    "  # (cookies, the admin listeners' Host check); X-Forwarded-For is REPLACED by the connection's",
    '  # address ($remote_addr, never $proxy_add_x_forwarded_for, which would append to the value the',
    "  # client wrote), so the services trust exactly one hop; a client's X-Forwarded-Host/-Port are",
    '  # cleared: the services build their URLs from configuration.',
    '  proxy_http_version 1.1;',
    '  proxy_set_header Connection "";',
    // Over TLS (HTTP/2 included) $host is the name the client asked for; in plain mode the Host
    // header as sent, port included, as a browser sends it to the service itself.
    `  proxy_set_header Host ${tls ? '$host' : '$http_host'};`,
    '  proxy_set_header X-Forwarded-For $remote_addr;',
    '  proxy_set_header X-Forwarded-Proto $scheme;',
    '  proxy_set_header X-Forwarded-Host "";',
    '  proxy_set_header X-Forwarded-Port "";',
    '  proxy_set_header X-Real-IP $remote_addr;',
    '  proxy_set_header X-Request-Id $acme_request_id;',
    '  proxy_connect_timeout 2s;',
    '  proxy_read_timeout 60s;',
    '  proxy_send_timeout 60s;',
    '  # An instance that refuses or times out a connection is left out for fail_timeout after',
    '  # max_fails failures (passive health), and the request goes to another instance if it was not',
    '  # sent yet, or is idempotent (nginx never resends a POST that reached an instance). A 503 is',
    '  # passed on as it is (with its Retry-After): an instance that sheds load or has lost its',
    '  # database says so itself, and counting that as a failure would take every instance out at',
    '  # once. Instances that are not ready, or draining, are taken out by the orchestrator',
    '  # (readiness on /health/ready); with a static list, regenerate it and `nginx -s reload`.',
    '  proxy_next_upstream error timeout;',
    '  proxy_next_upstream_tries 2;',
  );
  if (options.resolver) {
    lines.push(
      `  resolver ${options.resolver} valid=${options.resolverValidSeconds ?? 10}s ipv6=off;`,
      '  resolver_timeout 2s;',
    );
  }
  for (const site of options.sites) {
    if (resolvedAtRunTime(site, options)) continue;
    lines.push('', ...upstreamBlock(site));
  }
  if (tls) {
    lines.push(
      '',
      `  ssl_certificate ${tls.certificate};`,
      `  ssl_certificate_key ${tls.key};`,
      '  ssl_protocols TLSv1.2 TLSv1.3;',
      '  ssl_session_cache shared:tls:10m;',
      '',
      '  # Plain HTTP only redirects to https; an unknown host name gets nothing.',
      '  server {',
      '    listen 80 default_server;',
      '    server_name _;',
      '    return 308 https://$host$request_uri;',
      '  }',
      '',
      '  server {',
      '    listen 443 ssl http2 default_server;',
      '    server_name _;',
      '    return 421;',
      '  }',
    );
  }
  for (const site of options.sites) lines.push('', ...serverBlock(site, options));
  lines.push('}', '');
  return lines.join('\n');
}

/** The comment above a public site's server block (the first of the applications names them all). */
const SITE_COMMENTS: Partial<Record<Listener, string>> = {
  identityPublic: 'Identity (sign-in, sessions).',
  oauth2Public: 'Authorization server.',
  usersPublic: 'User service.',
  agent: 'Agent service.',
  platform: 'The account apps, one each.',
};

/** The site names of the services' public listeners (the applications' are `account_<app>`). */
const SERVICE_SITES: Partial<Record<Listener, string>> = {
  identityPublic: 'identity_public',
  oauth2Public: 'oauth2_public',
  usersPublic: 'users_public',
  agent: 'agent_public',
};

/**
 * The public listeners of a deployment, from the system's shape: their `npm start` ports and the
 * production example's host names (the shape with TLS on example.com).
 */
export const PUBLIC_SITES: readonly { name: string; port: number; host: string; comment?: string }[] =
  (() => {
    const deployed = systemShape({ host: 'example.com', tls: true });
    return (Object.keys(PUBLIC_HOSTS) as Listener[]).map((listener) => {
      const comment = SITE_COMMENTS[listener];
      return {
        name: SERVICE_SITES[listener] ?? `account_${listener.replaceAll('-', '_')}`,
        port: USUAL_PORTS[listener],
        host: new URL(deployed.listeners[listener]).host,
        ...(comment ? { comment } : {}),
      };
    });
  })();

/**
 * The public sites with their instances: `servers` names them for each listener (its usual port
 * given), e.g. `(port) => [`identity-0.identity:${port}`]`. Each site has both its usual `port`
 * (plain HTTP) and its example `serverName` (TLS): the options choose which is used.
 */
export function publicSites(servers: (port: number, name: string) => string[]): NginxSite[] {
  return PUBLIC_SITES.map((s) => ({
    name: s.name,
    port: s.port,
    serverName: s.host,
    servers: servers(s.port, s.name),
    keepalive: s.name.startsWith('account_') ? 16 : 64,
    ...(s.comment ? { comment: s.comment } : {}),
  }));
}

/** `docker/nginx.conf`: the production example (two instances per site at placeholder addresses). */
export const PRODUCTION_EXAMPLE: NginxOptions = {
  header: [
    "Production load balancer in front of the services' public listeners (see docs/deploy.md,",
    '"Load balancer"). GENERATED by `npm run nginx:conf` from packages/cluster/src/nginx.ts: edit',
    'that, not this file (a test fails when this file is stale).',
    '',
    'nginx terminates TLS (HTTP/2, Strict-Transport-Security) and is the one proxy the services',
    'trust (TRUST_PROXY=1 in every service): it SETS X-Forwarded-For to',
    'the address it saw, so a value the client wrote never reaches a service.',
    '',
    'To adapt: the host names in `server_name`, the certificate files under tls/ (next to this',
    'file), and the instances in each `upstream` (192.0.2.x are placeholders: one line per',
    'instance; DNS names work too, looked up at start and reload, or with `resolver` while nginx',
    'runs). The admin listeners (4434, 4445, 4456, 4467) are never exposed here: they stay on the',
    'internal network. Nor are the management listeners (9001-9005: metrics and health, no key):',
    'Prometheus scrapes each instance at its own, and a balancer in front would hide which one',
    'answered. Checked by `nginx -t` in `npm test` (scripts/test.mjs).',
  ],
  tls: { certificate: 'tls/fullchain.pem', key: 'tls/privkey.pem' },
  sites: publicSites((port) => [`192.0.2.11:${port}`, `192.0.2.12:${port}`]),
};
