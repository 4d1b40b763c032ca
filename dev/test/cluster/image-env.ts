import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '@acme/cluster/processes';

/** What the Dockerfile's runtime stage sets (`ENV`), but the account app's build directory. */
export const IMAGE_ENV: Record<string, string> = {
  NODE_ENV: 'production',
  MALLOC_MMAP_THRESHOLD_: '4194304',
  IDENTITY_PUBLIC_HOST: '0.0.0.0',
  OAUTH2_PUBLIC_HOST: '0.0.0.0',
  USERS_PUBLIC_HOST: '0.0.0.0',
  AGENT_PUBLIC_HOST: '0.0.0.0',
  ACCOUNT_HOST: '0.0.0.0',
};

/** `npm run build`'s compile step (only what is stale), as the image's build stage runs it. */
export function buildServices(): void {
  const run = spawnSync(process.execPath, [join(repoRoot, 'scripts/build.mjs')], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`scripts/build.mjs failed:\n${run.stderr}`);
}

/** The command line of a running process (Linux), to see what it runs. */
export function commandLine(pid: number): string[] {
  const run = spawnSync('cat', [`/proc/${pid}/cmdline`], { encoding: 'utf8' });
  return run.stdout.split('\0').filter(Boolean);
}

/**
 * The SAML service provider's keys production requires (it refuses the development ones): a fresh
 * key and self-signed certificate from `openssl`, one pair for signing and one for encryption.
 */
export function samlKeysEnv(): Record<string, string> {
  const pair = () => {
    const run = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=saml-sp-test',
        '-days',
        '1',
        '-keyout',
        '-',
      ],
      { encoding: 'utf8', timeout: 60_000, input: '' },
    );
    if (run.status !== 0) throw new Error(`openssl failed:\n${run.stderr}`);
    const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(run.stdout);
    const cert = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(run.stdout);
    if (!key || !cert) throw new Error('openssl printed no key and certificate');
    return { key: key[0], cert: cert[0] };
  };
  const signing = pair();
  const encryption = pair();
  return {
    IDENTITY_SAML_SIGNING_KEY: signing.key,
    IDENTITY_SAML_SIGNING_CERT: signing.cert,
    IDENTITY_SAML_ENCRYPTION_KEY: encryption.key,
    IDENTITY_SAML_ENCRYPTION_CERT: encryption.cert,
  };
}
