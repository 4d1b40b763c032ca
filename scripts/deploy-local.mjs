// `npm run deploy:local`: the Kubernetes manifests of deploy/kubernetes/base played on this machine
// with `podman kube play`, against a PostgreSQL pod and behind an nginx pod (both from Debian's
// packages), on the browser-facing ports of `npm start`. `npm run deploy:local -- down` removes
// everything it made. DEPLOY_PORT_OFFSET shifts every port (tests); `--no-build` skips `npm run image`;
// `--demo` adds the demo accounts of `npm start` (organisation Acme, its password users).
//
// What is changed on the way, and why (docs/deploy.md lists what podman does with each kind):
// - every pod runs with hostNetwork (the machine's loopback, where the browser and the tests look);
//   a Deployment's replicas therefore cannot share a port: each replica is played as its own pod,
//   its listeners moved to the usual port + 1000 × (replica + 1), and nginx balances them on the
//   usual ports (it plays the Services' part);
// - the ConfigMap's URLs become this machine's (http://localhost:<port>), the admin listeners bind
//   to loopback, and the Secret's values are made here, at random, into a podman secret;
// - the migration Job is played as a pod first, and the Deployments only after it has completed.
/* global fetch, AbortSignal, structuredClone */
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments, stringify } from 'yaml';
import { EngineMissing, capture, engine, root, run, stateDir } from './containers.mjs';
import { build, buildImages, debianRoot, exists } from './image.mjs';
import {
  ADMIN_LISTENER,
  APPLICATIONS as APPS,
  MANAGEMENT_LISTENER,
  PART_LISTENERS,
  PUBLIC_HOSTS,
  systemShape,
  USUAL_PORTS,
} from '@acme/system-shape';

const offset = Number(process.env.DEPLOY_PORT_OFFSET ?? 0);
const dir = join(stateDir, `deploy-${offset}`);
/**
 * The Secret's files. podman 4.3's `kube play` crashes on a `secret` volume (a nil pointer in
 * VolumeFromSecret), so the pods mount this directory instead (hostPath, read-only, the files
 * readable by the image's user only): the same files at the same path as a Kubernetes Secret volume.
 */
const secretsDir = join(dir, 'secrets');
/** A pod spec's Secret volume as the host directory of the Secret's files (see secretsDir). */
function secretVolumesAsFiles(spec) {
  for (const v of spec.volumes ?? [])
    if (v.secret) {
      delete v.secret;
      v.hostPath = { path: secretsDir, type: 'Directory' };
    }
}
const secretName = `acme-account-secrets-${offset}`;
const BASE = join(root, 'deploy', 'kubernetes', 'base');
/** The system's shape as the manifests have it (a deployment's: TLS, example.com) and here. */
const deployed = systemShape({ host: 'example.com', tls: true });
const here = systemShape({ offset });
/** Each service's public and admin ports (of the shape, as the manifests'). */
const PORTS = Object.fromEntries(
  Object.keys(ADMIN_LISTENER).map((part) => [
    part,
    PART_LISTENERS[part].filter((l) => l !== MANAGEMENT_LISTENER[part]).map((l) => USUAL_PORTS[l]),
  ]),
);
const ACCOUNT_PORTS = APPS.map((app) => USUAL_PORTS[app]);
/** Each part's management listener (metrics, health): moved per replica like the others, never behind nginx. */
const MANAGEMENT_PORTS = Object.fromEntries(
  Object.entries(MANAGEMENT_LISTENER).map(([part, listener]) => [part, USUAL_PORTS[listener]]),
);
const POSTGRES_PORT = 4532;
const at = (port) => port + offset;
const instancePort = (port, replica) => port + offset + 1000 * (replica + 1);

/** The documents of the base's resources, in its order. */
function manifests() {
  const k = parseAllDocuments(readFileSync(join(BASE, 'kustomization.yaml'), 'utf8'))[0].toJS();
  return k.resources.flatMap((f) =>
    parseAllDocuments(readFileSync(join(BASE, f), 'utf8')).map((d) => d.toJS()),
  );
}

/** The ConfigMap with this machine's URLs: the browser's through nginx, the admin APIs' too. */
function localConfig(configMap) {
  const data = { ...configMap.data };
  const swap = (from, to) => {
    for (const [k, v] of Object.entries(data)) data[k] = v.split(from).join(to);
  };
  for (const listener of [...Object.keys(PUBLIC_HOSTS), ...Object.values(ADMIN_LISTENER)])
    swap(deployed.listeners[listener], here.listeners[listener]);
  return { ...configMap, data };
}

/** One replica of a Deployment's pod template as a Pod on the host's network, on its own ports. */
function replicaPod(deployment, replica) {
  const name = deployment.metadata.name;
  const spec = structuredClone(deployment.spec.template.spec);
  secretVolumesAsFiles(spec);
  const [c] = spec.containers;
  const moved = new Map(
    [
      ...(PORTS[name] ?? []),
      ...(name === 'account' ? ACCOUNT_PORTS : []),
      ...(MANAGEMENT_PORTS[name] ? [MANAGEMENT_PORTS[name]] : []),
    ].map((p) => [p, instancePort(p, replica)]),
  );
  c.env = (c.env ?? []).map((e) => {
    if (e.valueFrom?.secretKeyRef) e.valueFrom.secretKeyRef.name = secretName;
    if (e.value && /_PORT$/.test(e.name) && moved.has(Number(e.value)))
      return { ...e, value: String(moved.get(Number(e.value))) };
    if (e.name === 'ACCOUNT_PORTS')
      return { ...e, value: APPS.map((a, i) => `${a}=${moved.get(ACCOUNT_PORTS[i])}`).join(',') };
    if (/_(ADMIN|MANAGEMENT)_HOST$/.test(e.name)) return { ...e, value: '127.0.0.1' };
    return e;
  });
  // The image binds the public listeners to every address; here, the loopback only.
  for (const host of [
    'IDENTITY_PUBLIC_HOST',
    'OAUTH2_PUBLIC_HOST',
    'USERS_PUBLIC_HOST',
    'AGENT_PUBLIC_HOST',
    'ACCOUNT_HOST',
  ])
    c.env.push({ name: host, value: '127.0.0.1' });
  c.ports = c.ports.map((p) => ({ ...p, containerPort: moved.get(p.containerPort) ?? p.containerPort }));
  for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
    const get = c[probe]?.httpGet;
    if (get) get.port = c.ports.find((p) => p.name === get.port)?.containerPort ?? get.port;
  }
  // podman refuses declared ports on the host's network ("PortMappings can only be used with
  // Bridge or slirp4netns networking"): the listeners are the environment's.
  delete c.ports;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${name}-${replica}-${offset}`, labels: deployment.spec.template.metadata.labels },
    spec: { ...spec, hostNetwork: true },
  };
}

/** The migration Job's pod, to run once to completion. */
function jobPod(job) {
  const spec = structuredClone(job.spec.template.spec);
  secretVolumesAsFiles(spec);
  for (const c of [...(spec.initContainers ?? []), ...spec.containers])
    for (const e of c.env ?? []) if (e.valueFrom?.secretKeyRef) e.valueFrom.secretKeyRef.name = secretName;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${job.metadata.name}-${offset}`, labels: job.spec.template.metadata.labels },
    spec: { ...spec, restartPolicy: 'Never', hostNetwork: true },
  };
}

/** The image of the PostgreSQL and nginx pods: Debian's packages, an unprivileged user. */
function infraImage(eng) {
  const debian = debianRoot(eng, ['dash', 'postgresql-15', 'nginx-light', 'libc6']);
  const tag = `${debian.replace('/debian:', '/infra:')}`;
  if (!exists(eng, tag)) {
    build(
      eng,
      tag,
      [
        `FROM ${debian}`,
        'ENV PATH=/usr/lib/postgresql/15/bin:/usr/sbin:/usr/bin:/sbin:/bin',
        "RUN echo 'acme:x:10001:10001::/tmp:/bin/sh' >> /etc/passwd && echo 'acme:x:10001:' >> /etc/group",
        'USER 10001:10001',
        '',
      ].join('\n'),
      {},
    );
  }
  return tag;
}

const pod = (name, image, script, env) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `${name}-${offset}` },
  spec: {
    hostNetwork: true,
    containers: [
      {
        name,
        image,
        command: ['/bin/sh', '-c', script],
        env: Object.entries(env).map(([n, v]) => ({ name: n, value: v })),
      },
    ],
  },
});

/** PostgreSQL 15 on loopback, its roles made by deploy/kubernetes/database/roles.sql. */
function postgresPod(image, secrets) {
  // The image has no coreutils: the shell's own printf and redirections only.
  const script = [
    'set -e',
    'D=/tmp/pgdata',
    'if [ ! -s $D/PG_VERSION ]; then',
    '  printf %s "$SUPERUSER_PASSWORD" > /tmp/pw',
    '  initdb -D $D -U postgres --auth=scram-sha-256 --pwfile=/tmp/pw --locale=C --encoding=UTF8 >/dev/null',
    '  : > /tmp/pw',
    '  pg_ctl -D $D -o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1" -w start >/dev/null',
    '  printf %s "$ROLES_SQL" > /tmp/roles.sql',
    '  PGPASSWORD="$SUPERUSER_PASSWORD" psql -q -h 127.0.0.1 -p $PGPORT -U postgres -d postgres -v ON_ERROR_STOP=1 ' +
      '-v migrator_password="$MIGRATOR_PASSWORD" -v app_password="$APP_PASSWORD" -v database=acme -f /tmp/roles.sql',
    '  pg_ctl -D $D -w stop >/dev/null',
    'fi',
    'echo "PostgreSQL ready on $PGPORT"',
    'exec postgres -D $D -p $PGPORT -k /tmp -c listen_addresses=127.0.0.1',
  ].join('\n');
  return pod('postgres', image, script, {
    PGPORT: String(at(POSTGRES_PORT)),
    SUPERUSER_PASSWORD: secrets.superuser,
    MIGRATOR_PASSWORD: secrets.migrator,
    APP_PASSWORD: secrets.app,
    ROLES_SQL: readFileSync(join(root, 'deploy', 'kubernetes', 'database', 'roles.sql'), 'utf8'),
  });
}

/** nginx on the usual ports, round-robin over the replicas (the Services' part). */
function nginxPod(image, replicas) {
  const listeners = [
    ...Object.entries(PORTS).flatMap(([part, ports]) => ports.map((p) => [part, p])),
    ...ACCOUNT_PORTS.map((p) => ['account', p]),
  ];
  const conf = [
    'pid /tmp/nginx.pid;',
    'error_log stderr warn;',
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    '  client_body_temp_path /tmp/body; proxy_temp_path /tmp/proxy;',
    '  fastcgi_temp_path /tmp/fastcgi; uwsgi_temp_path /tmp/uwsgi; scgi_temp_path /tmp/scgi;',
    ...listeners.flatMap(([part, port]) => [
      `  upstream u${port} {`,
      ...Array.from(
        { length: replicas[part] },
        (_, r) => `    server 127.0.0.1:${instancePort(port, r)} max_fails=2 fail_timeout=5s;`,
      ),
      '    keepalive 16;',
      '  }',
      '  server {',
      `    listen 127.0.0.1:${at(port)};`,
      '    location / {',
      `      proxy_pass http://u${port};`,
      '      proxy_http_version 1.1;',
      '      proxy_set_header Connection "";',
      '      proxy_set_header Host $http_host;',
      '      proxy_set_header X-Forwarded-For $remote_addr;',
      '      proxy_next_upstream error timeout http_502 http_503;',
      '    }',
      '  }',
    ]),
    '}',
  ].join('\n');
  return pod(
    'nginx',
    image,
    'printf %s "$NGINX_CONF" > /tmp/nginx.conf && exec nginx -c /tmp/nginx.conf -g "daemon off;"',
    {
      NGINX_CONF: conf,
    },
  );
}

/** Plays one file of documents; remembers it for `down`. */
function play(eng, file, docs, seconds = 300) {
  // podman runs init containers to their end inside `kube play`: a migration that never exits
  // would hold it, so the play is bounded.
  writeFileSync(join(dir, file), docs.map((d) => stringify(d)).join('---\n'));
  if (run(eng, ['kube', 'play', '--quiet', join(dir, file)], { timeout: seconds * 1000 }) !== 0)
    throw new Error(`podman kube play ${file} failed or took more than ${seconds} s`);
}

/** Waits until `check` is true, or throws after `seconds`. */
async function until(what, seconds, check) {
  const end = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(500);
  }
}
const answers = (url, headers = {}) =>
  fetch(url, { headers, signal: AbortSignal.timeout(2000) }).then(
    (r) => r.ok,
    () => false,
  );

/**
 * `--demo`: the demo organisation Acme and its password users, through the user service's admin
 * API (the seed of `npm start`, from the compiled user service: `npm run deploy:local` runs Node
 * with `--conditions=compiled`).
 */
async function seedDemoAccounts(usersAdminKey) {
  const { seedDemo, DEMO_PASSWORD } = await import('@acme/users');
  const { users } = await seedDemo(here.listeners.usersAdmin, usersAdminKey);
  console.log(`\nDemo accounts (password ${DEMO_PASSWORD}): ${users.map((u) => u.email).join(', ')}`);
}

function down(eng) {
  if (existsSync(dir)) {
    for (const f of readdirSync(dir)
      .filter((f) => f.endsWith('.yaml'))
      .reverse())
      run(eng, ['kube', 'down', join(dir, f)], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
  spawnSync(eng.cmd, ['secret', 'rm', secretName], { env: eng.env, stdio: 'ignore' });
}

async function up(eng) {
  if (!process.argv.includes('--no-build')) buildImages(eng);
  down(eng);
  mkdirSync(dir, { recursive: true });
  const all = manifests();
  const infra = infraImage(eng);
  const pw = () => randomBytes(24).toString('hex');
  const secrets = { superuser: pw(), migrator: pw(), app: pw() };
  const db = (role, password) => `postgres://${role}:${password}@127.0.0.1:${at(POSTGRES_PORT)}/acme`;
  const values = {
    'database-url': db('acme_app', secrets.app),
    'migrator-database-url': db('acme_migrator', secrets.migrator),
    'identity-admin-key': pw(),
    'oauth2-admin-key': pw(),
    'users-admin-key': pw(),
    'agent-admin-key': pw(),
    'identity-code-secret': pw(),
    'sso-secret-key': pw(),
    'oauth2-keys-secret': pw(),
  };
  // podman's secretKeyRef reads a podman secret holding a JSON object of base64 values.
  const secretFile = join(dir, 'secret.json');
  writeFileSync(
    secretFile,
    JSON.stringify(
      Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    ),
    { mode: 0o600 },
  );
  capture(eng, ['secret', 'create', secretName, secretFile]);
  rmSync(secretFile);
  // The Secret's files (secretsDir): owned by the image's user (10001), readable by it alone.
  mkdirSync(secretsDir, { mode: 0o500 });
  for (const [key, value] of Object.entries(values)) {
    writeFileSync(join(secretsDir, key), value, { mode: 0o400 });
    chownSync(join(secretsDir, key), 10001, 10001);
  }
  chownSync(secretsDir, 10001, 10001);

  console.log('PostgreSQL…');
  play(eng, '1-postgres.yaml', [postgresPod(infra, secrets)]);
  await until(
    'PostgreSQL',
    60,
    () => capture(eng, ['logs', `postgres-${offset}-postgres`]).includes('PostgreSQL ready') || false,
  );
  await sleep(1000);

  const config = localConfig(all.find((m) => m.kind === 'ConfigMap'));
  console.log('The migration Job…');
  const job = all.find((m) => m.kind === 'Job');
  const jp = jobPod(job);
  play(eng, '2-migrate.yaml', [config, jp]);
  const last = `${jp.metadata.name}-${jp.spec.containers[0].name}`;
  await until(
    'the migration Job',
    120,
    () => capture(eng, ['inspect', '--format', '{{.State.Status}}', last]) === 'exited',
  );
  const code = capture(eng, ['inspect', '--format', '{{.State.ExitCode}}', last]);
  if (code !== '0') throw new Error(`the migration Job failed (exit ${code}): podman logs ${last}`);

  console.log('The Deployments…');
  const deployments = all.filter((m) => m.kind === 'Deployment');
  const replicas = Object.fromEntries(deployments.map((d) => [d.metadata.name, d.spec.replicas]));
  play(eng, '3-services.yaml', [
    config,
    ...deployments.flatMap((d) => Array.from({ length: d.spec.replicas }, (_, r) => replicaPod(d, r))),
  ]);
  play(eng, '4-nginx.yaml', [nginxPod(infra, replicas)]);
  // Every replica ready on its own ports, then the same through nginx.
  const u = USUAL_PORTS;
  const ready = (port) => [
    answers(`http://127.0.0.1:${port(u.identityPublic)}/health/ready`),
    answers(`http://127.0.0.1:${port(u.oauth2Admin)}/health/ready`, {
      host: `localhost:${port(u.oauth2Admin)}`,
    }),
    answers(`http://127.0.0.1:${port(u.usersPublic)}/health/ready`),
    // The admin APIs the demo seed goes through (the user service's, and the identity service's
    // behind it): a seed sent before nginx could reach them got nginx's HTML error page in one run.
    answers(`http://127.0.0.1:${port(u.usersAdmin)}/health/ready`, {
      host: `localhost:${port(u.usersAdmin)}`,
    }),
    answers(`http://127.0.0.1:${port(u.identityAdmin)}/health/ready`, {
      host: `localhost:${port(u.identityAdmin)}`,
    }),
    answers(`http://127.0.0.1:${port(u.agent)}/health/ready`),
    // The second app's port: fetch refuses 6000, the first app's port of the second replica.
    answers(`http://127.0.0.1:${port(u.magic)}/account/`),
  ];
  const instances = Math.max(...Object.values(replicas));
  await until('every replica, then the services behind nginx', 180, async () =>
    (
      await Promise.all([
        ...Array.from({ length: instances }, (_, r) => ready((p) => instancePort(p, r))).flat(),
        ...ready(at),
      ])
    ).every(Boolean),
  );
  if (process.argv.includes('--demo')) await seedDemoAccounts(values['users-admin-key']);
  console.log(
    `\nacme-account is up (podman kube play, ${Object.values(replicas).reduce((a, b) => a + b, 0)} service pods behind nginx):`,
  );
  for (const app of APPS) console.log(`  ${app.padEnd(11)} ${here.apps[app]}/`);
  const l = here.listeners;
  console.log(
    `  identity    ${l.identityPublic}\n  oauth2      ${l.oauth2Public}\n  users       ${l.usersPublic}\n  agent       ${l.agent}`,
  );
  console.log('\nRemove everything with: npm run deploy:local -- down');
}

try {
  const eng = engine();
  if (!eng.podman) throw new EngineMissing('npm run deploy:local needs podman (its `kube play`).');
  if (process.argv.includes('down')) down(eng);
  else await up(eng);
} catch (err) {
  console.error(err instanceof EngineMissing ? err.message : `npm run deploy:local: ${err.message}`);
  process.exit(1);
}
