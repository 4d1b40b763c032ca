// `npm run image`: builds the product's images from `Dockerfile`, tagged `acme-account/<part>:<version>`
// (identity, oauth2, users, agent, account, stand-ins).
//
// Two ways to fill the images, from the same Dockerfile:
//   - by default, from this checkout's compiled output: `npm run build` here (only what is stale is
//     compiled again), then docker/runtime-tree.mjs on this machine, and the prepared trees handed
//     to the build as the context named `build` (`--build-context build=<dir>`), which takes the
//     place of the Dockerfile's build stage: no `npm ci` inside the build. `--built` trusts the
//     output already there (the test run's compile and build stages made it) and builds only what
//     is missing;
//   - `--full`: the Dockerfile's own build stage (`npm ci` and `npm run build` inside the build),
//     what a registry's CI runs from a clean checkout.
// `--official-base` builds on the official Node image from a registry; by default, with podman, the
// bases are made here from Debian packages and the Node binary the tests run on (no registry needed):
//   - the Debian root (libc, libstdc++, dash, tini) from `mmdebstrap --variant=extract`, its tarball
//     kept in /var/tmp/acme-account keyed by the Debian release and the package list;
//   - `localhost/acme-account/node:<node>-<release>`: that root and node_modules' Node binary;
//   - `localhost/acme-account/node-build:<node>-<release>`: the same and npm, for the build stage.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EngineMissing, capture, engine, root, run, stateDir, version } from './containers.mjs';

export const PARTS = ['identity', 'oauth2', 'users', 'agent', 'account', 'stand-ins'];
export const imageOf = (part) => `acme-account/${part}:${version}`;
export const RELEASE = 'bookworm';
const PACKAGES = ['libc6', 'libstdc++6', 'libgcc-s1', 'dash', 'tini'];

/** The Node binary the tests run on (the root's `node` dev dependency) and its version. */
function testedNode() {
  const bin = realpathSync(join(root, 'node_modules', '.bin', 'node'));
  const platformBin = join(
    root,
    'node_modules',
    'node',
    'node_modules',
    `node-linux-${process.arch}`,
    'bin',
    'node',
  );
  const file = existsSync(platformBin) ? platformBin : bin;
  const v = spawnSync(file, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
  return { file, version: v };
}

export const exists = (eng, image) =>
  spawnSync(eng.cmd, ['image', 'exists', image], { env: eng.env }).status === 0;

export function build(eng, tag, containerfile, files) {
  const ctx = mkdtempSync(join(tmpdir(), 'acme-base-'));
  try {
    for (const [name, from] of Object.entries(files)) cpSync(from, join(ctx, name), { recursive: true });
    writeFileSync(join(ctx, 'Containerfile'), containerfile);
    const args = [
      'build',
      '--isolation',
      'chroot',
      '--network',
      'host',
      '--format',
      'docker',
      '-q',
      '-t',
      tag,
      ctx,
    ];
    if (run(eng, args) !== 0) throw new Error(`could not build ${tag}`);
  } finally {
    rmSync(ctx, { recursive: true, force: true });
  }
}

/**
 * An image of the Debian root holding `packages` (and what they depend on), unpacked without their
 * install scripts; the tarball is kept in stateDir, keyed by the release and the package list.
 */
export function debianRoot(eng, packages) {
  const key = createHash('sha256').update(packages.join(',')).digest('hex').slice(0, 12);
  const tarball = join(stateDir, `debian-${RELEASE}-${key}.tar`);
  if (!existsSync(tarball)) {
    console.log(`Making the Debian ${RELEASE} root (${packages.join(', ')}) with mmdebstrap…`);
    const partial = `${tarball}.partial`;
    const args = [
      '--quiet',
      '--format=tar',
      '--variant=extract',
      `--include=${packages.join(',')}`,
      RELEASE,
      partial,
    ];
    if (spawnSync('mmdebstrap', args, { stdio: 'inherit' }).status !== 0)
      throw new Error('mmdebstrap failed');
    renameSync(partial, tarball);
  }
  const image = `localhost/acme-account/debian:${RELEASE}-${key}`;
  if (!exists(eng, image) && run(eng, ['import', '-q', tarball, image]) !== 0)
    throw new Error(`could not import ${tarball}`);
  return image;
}

/**
 * The base images made from Debian packages (the build stage's only with `withBuilder`); returns
 * their names.
 */
export function debianBases(eng, { withBuilder = false } = {}) {
  const node = testedNode();
  const runtime = `localhost/acme-account/node:${node.version}-${RELEASE}`;
  const builder = `localhost/acme-account/node-build:${node.version}-${RELEASE}`;
  if (!exists(eng, runtime)) {
    const debian = debianRoot(eng, PACKAGES);
    // An imported image has no PATH: `podman kube play` (unlike `podman run`) gives it none either.
    const path = 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
    build(eng, runtime, `FROM ${debian}\n${path}\nCOPY node /usr/local/bin/node\n`, { node: node.file });
  }
  if (!withBuilder || exists(eng, builder)) return { runtime, builder };
  const npmDir = join(
    dirname(realpathSync(spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim())),
    '..',
  );
  const wrapper = (cli) =>
    `#!/bin/sh\nexec /usr/local/bin/node /usr/local/lib/node_modules/npm/bin/${cli}.js "$@"\n`;
  // The build stage fetches packages from the npm registry: it trusts the certificate authorities
  // this machine's Node trusts (a proxy's own, where one intercepts TLS).
  const ca = [process.env.NODE_EXTRA_CA_CERTS, '/etc/ssl/certs/ca-certificates.crt'].find(
    (f) => f && existsSync(f),
  );
  const scripts = mkdtempSync(join(tmpdir(), 'acme-npm-'));
  writeFileSync(join(scripts, 'npm'), wrapper('npm-cli'), { mode: 0o755 });
  writeFileSync(join(scripts, 'npx'), wrapper('npx-cli'), { mode: 0o755 });
  // Packages' executables start with `#!/usr/bin/env node`; the root has no coreutils.
  writeFileSync(join(scripts, 'env'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  try {
    build(
      eng,
      builder,
      [
        `FROM ${runtime}`,
        'COPY npm /usr/local/lib/node_modules/npm',
        'COPY bin/ /usr/local/bin/',
        'COPY bin/env /usr/bin/env',
        ...(ca
          ? [
              'COPY ca.crt /etc/ssl/certs/ca-certificates.crt',
              'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
            ]
          : []),
        'ENV HOME=/root',
        '',
      ].join('\n'),
      { npm: npmDir, bin: scripts, ...(ca ? { 'ca.crt': ca } : {}) },
    );
  } finally {
    rmSync(scripts, { recursive: true, force: true });
  }
  return { runtime, builder };
}

const RUNTIME_WORKSPACES = [
  'services/identity',
  'services/oauth2',
  'services/users',
  'services/agent',
  'apps/account',
];

/**
 * The trees the Dockerfile's build stage would copy out (`/out/runtime`, `/out/stand-ins`), made
 * here by docker/runtime-tree.mjs from this checkout's compiled output; returns their directory.
 * `built`: the output is already there (only what is missing is built), else `npm run build` first.
 */
function preparedTrees(built) {
  const sh = (cmd) => {
    if (spawnSync('sh', ['-c', cmd], { cwd: root, stdio: 'inherit' }).status !== 0)
      throw new Error(`${cmd} failed`);
  };
  if (!built) sh('npm run build --silent');
  else {
    sh('node scripts/build.mjs');
    if (!existsSync(join(root, 'apps', 'account', 'dist', 'index.html')))
      sh('npm run build -w @acme/account');
  }
  const dir = mkdtempSync(join(tmpdir(), 'acme-tree-'));
  const tree = (out, workspaces) =>
    sh(`node docker/runtime-tree.mjs ${join(dir, 'out', out)} ${workspaces.join(' ')}`);
  tree('runtime', [...RUNTIME_WORKSPACES, '--without=dev']);
  tree('stand-ins', ['dev']);
  return dir;
}

/**
 * Builds every part's image. `official`: on the Dockerfile's default (registry) bases; `full`: with
 * the Dockerfile's own build stage (npm ci and the build inside it), else from this checkout's
 * output (`built`: already compiled and built).
 */
export function buildImages(eng, { official = !eng.podman, full = false, built = false } = {}) {
  const revision =
    spawnSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim() || 'unknown';
  const args = ['--build-arg', `VERSION=${version}`, '--build-arg', `REVISION=${revision}`];
  if (!official) {
    const bases = debianBases(eng, { withBuilder: full });
    args.push('--build-arg', `BASE_IMAGE=${bases.runtime}`, '--build-arg', `BUILD_IMAGE=${bases.builder}`);
  }
  // The prepared trees take the place of the build stage (named contexts win over stages).
  const trees = full ? undefined : preparedTrees(built);
  if (trees) args.push('--build-context', `build=${trees}`);
  // The docker format keeps HEALTHCHECK (OCI image configurations have no field for it).
  const isolation = eng.podman
    ? ['--isolation', 'chroot', '--network', 'host', '--layers', '--format', 'docker']
    : [];
  try {
    for (const target of ['runtime', 'stand-ins']) {
      const tag = imageOf(target);
      console.log(`Building ${tag}…`);
      if (run(eng, ['build', ...isolation, ...args, '--target', target, '-t', tag, '.']) !== 0)
        throw new Error(`the ${target} image did not build`);
    }
  } finally {
    if (trees) rmSync(trees, { recursive: true, force: true });
  }
  // One image per service part: the runtime with the part as its command and a health check of its
  // liveness route (`acme-entrypoint healthcheck <part>`; Kubernetes runs the manifests' probes instead).
  for (const part of PARTS.filter((p) => p !== 'stand-ins')) {
    const entry = '/usr/local/bin/acme-entrypoint';
    build(
      eng,
      imageOf(part),
      [
        `FROM ${imageOf('runtime')}`,
        `HEALTHCHECK --interval=15s --timeout=3s --start-period=20s CMD ["${entry}", "healthcheck", "${part}"]`,
        `CMD ["${part}"]`,
        '',
      ].join('\n'),
      {},
    );
  }
  const size = Number(capture(eng, ['image', 'inspect', '--format', '{{.Size}}', imageOf('identity')]));
  console.log(
    `\nBuilt ${PARTS.map(imageOf).join(', ')}.\nService runtime image: ${(size / 1e6).toFixed(0)} MB.`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const flag = (name) => process.argv.includes(name);
    buildImages(engine(), {
      ...(flag('--official-base') ? { official: true } : {}),
      full: flag('--full'),
      built: flag('--built'),
    });
  } catch (err) {
    console.error(err instanceof EngineMissing ? err.message : `npm run image: ${err.message}`);
    process.exit(1);
  }
}
