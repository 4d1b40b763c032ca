import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DISABLE_PROTO_FLAG } from '@acme/service-kit/prototype';
import { partCommand, repoRoot, type Part } from './processes.ts';

const PARTS: Part[] = ['identity', 'oauth2', 'users', 'agent', 'account', 'standIns'];

const scripts = (path: string) =>
  (JSON.parse(readFileSync(join(repoRoot, path), 'utf8')) as { scripts: Record<string, string> }).scripts;

describe('every service process runs without Object.prototype.__proto__', () => {
  it.each(PARTS)('the cluster starts %s with --disable-proto=delete, compiled and from sources', (part) => {
    for (const runtime of ['compiled', 'source'] as const) {
      const { args } = partCommand(part, runtime);
      // A Node flag: before the entry point, which is the last argument.
      expect(args.indexOf(DISABLE_PROTO_FLAG)).toBeGreaterThanOrEqual(0);
      expect(args.indexOf(DISABLE_PROTO_FLAG)).toBeLessThan(args.length - 1);
    }
  });

  it('npm start, npm run dev, npm run start:cluster and npm run bench pass the flag to node', () => {
    const root = scripts('package.json');
    for (const name of ['start', 'dev', 'start:cluster', 'bench']) {
      expect(root[name], name).toMatch(new RegExp(`\\bnode ${DISABLE_PROTO_FLAG} `));
    }
  });

  it.each([
    'services/identity/package.json',
    'services/oauth2/package.json',
    'services/users/package.json',
    'services/agent/package.json',
    'apps/account/package.json',
    'dev/package.json',
  ])("each part's own start script passes it too: %s", (path) => {
    expect(scripts(path).start).toMatch(new RegExp(`&& node ${DISABLE_PROTO_FLAG} `));
  });
});

describe('every service process loads the tracing preload (it starts tracing only with an OTLP endpoint)', () => {
  const TRACING = 'packages/service-kit/tracing.mjs';

  it.each(PARTS)(
    'the cluster starts %s with it before the entry point, compiled and from sources',
    (part) => {
      for (const runtime of ['compiled', 'source'] as const) {
        const { args } = partCommand(part, runtime);
        const at = args.findIndex((a) => a.endsWith(TRACING));
        expect(args[at - 1]).toBe('--import');
        expect(at).toBeLessThan(args.length - 1);
      }
    },
  );

  it("npm start, npm run dev, each part's own start script and the image's entry point load it", () => {
    expect(scripts('package.json').start).toContain(`--import ./${TRACING}`);
    expect(scripts('package.json').dev).toContain(`--import ./${TRACING}`);
    for (const path of [
      'services/identity/package.json',
      'services/oauth2/package.json',
      'services/users/package.json',
      'services/agent/package.json',
      'apps/account/package.json',
      'dev/package.json',
    ]) {
      expect(scripts(path).start, path).toContain(TRACING);
    }
    expect(readFileSync(join(repoRoot, 'docker/entrypoint.sh'), 'utf8')).toContain(
      `--import "$APP_DIR/${TRACING}"`,
    );
  });
});
