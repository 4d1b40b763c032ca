import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli-commands.ts';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { runCliJson, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('admin CLI', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    svc = await startTestService({
      env: { IDENTITY_ADMIN_URL: identity.adminUrl, IDENTITY_PUBLIC_URL: identity.publicUrl },
    });
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
  });

  const cli = (...argv: string[]) => runCliJson(svc.adminUrl, argv);

  it('creates and lists organisations and users, printing JSON', async () => {
    const org = await cli(
      'org:create',
      '--name',
      'Acme',
      '--domains',
      'acme.test, labs.acme.test',
      '--products',
      'Platform,MAGIC',
    );
    expect(org.code).toBe(0);
    expect(org.json).toMatchObject({
      name: 'Acme',
      domains: ['acme.test', 'labs.acme.test'],
      products: ['Platform', 'MAGIC'],
    });

    const orgs = await cli('org:list');
    expect(orgs.json.organisations.map((o: any) => o.id)).toEqual([org.json.id]);
    expect((await cli('org:get', '--id', org.json.id)).json.name).toBe('Acme');

    const user = await cli(
      'user:create',
      '--org',
      org.json.id,
      '--email',
      'ada@acme.test',
      '--first',
      'Ada',
      '--last',
      'Lovelace',
      '--role',
      'org-admin',
      '--password',
      'Research-Demo-2026!',
      '--scope-groups',
      'research',
    );
    expect(user.code).toBe(0);
    expect(user.json).toMatchObject({ email: 'ada@acme.test', role: 'org-admin', scopeGroups: ['research'] });
    expect(user.json.identityId).toEqual(expect.any(String));

    const users = await cli('user:list', '--org', org.json.id);
    expect(users.json.users.map((u: any) => u.email)).toEqual(['ada@acme.test']);
    expect((await cli('user:get', '--id', user.json.id)).json.email).toBe('ada@acme.test');
  });

  it('exits 1 and prints the error when the service refuses', async () => {
    const orgId = (await cli('org:list')).json.organisations[0].id;
    const dup = await cli(
      'user:create',
      '--org',
      orgId,
      '--email',
      'ada@acme.test',
      '--first',
      'A',
      '--last',
      'L',
      '--role',
      'member',
    );
    expect(dup.code).toBe(1);
    expect(JSON.parse(dup.stderr)).toMatchObject({ errorCode: 'USER_EXISTS' });
  });

  it('abuse: the CLI cannot set a password the app would refuse (it needs a digit and a special character)', async () => {
    const orgId = (await cli('org:list')).json.organisations[0].id;
    for (const [email, password, why] of [
      ['nodigit@acme.test', 'a long passphrase, no number', 'it does not contain a number'],
      ['nospecial@acme.test', 'Passphrase2026', 'it does not contain a special character'],
    ] as const) {
      const res = await cli(
        'user:create',
        '--org',
        orgId,
        '--email',
        email,
        '--first',
        'A',
        '--last',
        'L',
        '--role',
        'member',
        '--password',
        password,
      );
      expect(res.code).toBe(1);
      const body = JSON.parse(res.stderr);
      expect(body).toMatchObject({ errorCode: 'IDENTITY_REJECTED' });
      expect(body.message).toContain(why);
      expect(res.stderr).not.toContain(password);
    }
  });

  it('exits 2 with usage on unknown commands, unknown options and missing options', async () => {
    for (const argv of [['nope'], ['org:list', '--bogus'], ['org:create', '--name', 'X'], []]) {
      const res = await cli(...argv);
      expect(res.code).toBe(2);
    }
    const help = await cli('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('user:create');
  });

  it('exits 1 when the service is unreachable', async () => {
    const err: string[] = [];
    const code = await runCli(['org:list'], {
      env: { USERS_ADMIN_URL: 'http://127.0.0.1:9' },
      out: () => {},
      err: (t) => err.push(t),
    });
    expect(code).toBe(1);
    expect(JSON.parse(err.join(''))).toMatchObject({ errorCode: 'UNREACHABLE' });
  });

  it('runs as `npm run admin` does: a process printing JSON, non-zero on errors', async () => {
    const node = `${root}node_modules/.bin/node`;
    const args = ['--import', 'tsx', 'services/users/src/cli.ts'];
    const env = { ...process.env, USERS_ADMIN_URL: svc.adminUrl };
    const ok = await run(node, [...args, 'org:list'], { cwd: root, env });
    expect(JSON.parse(ok.stdout).organisations).toHaveLength(1);
    const failed = await run(node, [...args, 'org:get', '--id', 'nope'], { cwd: root, env }).catch(
      (e: any) => e,
    );
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stderr)).toMatchObject({ errorCode: 'ORGANISATION_NOT_FOUND' });
  });

  it("org:self-signup opens and closes self sign-up; the Email step's login config says so for the domain only", async () => {
    const org = await cli(
      'org:create',
      '--name',
      'Signup Lab',
      '--domains',
      'signup-lab.test',
      '--products',
      'Platform',
    );
    const config = async (email: string) =>
      (
        await fetch(`${svc.publicUrl}/login/config?emailAddress=${encodeURIComponent(email)}`)
      ).json() as Promise<any>;
    expect((await cli('org:self-signup', '--org', org.json.id, '--show')).json).toEqual({
      organisationId: org.json.id,
      enabled: false,
    });
    expect((await config('x@signup-lab.test')).selfSignUp).toBe(false);
    expect((await cli('org:self-signup', '--org', org.json.id, '--on')).json.enabled).toBe(true);
    expect((await config('x@signup-lab.test')).selfSignUp).toBe(true);
    expect((await config('x@elsewhere.test')).selfSignUp).toBe(false);
    expect((await cli('org:self-signup', '--org', org.json.id, '--off')).json.enabled).toBe(false);
    expect((await config('x@signup-lab.test')).selfSignUp).toBe(false);
    expect((await cli('org:self-signup', '--org', org.json.id)).code).toBe(2);
    expect((await cli('org:self-signup', '--org', org.json.id, '--on', '--off')).code).toBe(2);
  });
});
