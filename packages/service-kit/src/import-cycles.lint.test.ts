import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The repository's own lint configuration (eslint.config.js), run on code placed in a source tree. */
const repo = join(import.meta.dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: repo });

async function cycleProblems(code: string, filePath: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'acme/no-import-cycles').map((m) => m.message);
}

/** A file's text as it is, plus one more line. */
const withLine = (path: string, line: string) => `${line}\n${readFileSync(join(repo, path), 'utf8')}`;

describe('the lint rule against import cycles', () => {
  it.each([
    // The user service's event log sits below the domains that record events.
    ['services/users/src/events/probe.ts', "export { listMembers } from '../members/members.ts';"],
    ['services/users/src/users/probe.ts', "export { registerConsoleRoutes } from '../console/routes.ts';"],
    ['services/oauth2/src/interactions/probe.ts', "export { createAdminServer } from '../admin/server.ts';"],
    ['services/agent/src/http/probe.ts', "export { createApp } from '../app.ts';"],
    // Identity's known cycle admits no new folder.
    ['services/identity/src/db/probe.ts', "export * from '../flows/engine.ts';"],
    ['apps/account/src/shared/probe.ts', "export * from '../app/router.tsx';"],
  ])('refuses a new folder cycle: %s ← %s', async (filePath, code) => {
    expect(await cycleProblems(code, filePath)).toEqual([expect.stringContaining('one-way graph')]);
  });

  it.each([
    ['apps/account/src/shared/oauth2/token-endpoint.ts', "import { readToken } from './token-lifecycle.ts';"],
    ['apps/account/server/static-files.ts', "import type { AccountTelemetry } from './serve.ts';"],
    ['services/users/src/events/events.ts', "import { listMembers } from '../members/members.ts';"],
  ])('refuses a new file cycle, through types too: %s ← %s', async (filePath, line) => {
    expect(await cycleProblems(withLine(filePath, line), filePath)).toEqual([
      expect.stringContaining('closes a cycle of files'),
    ]);
  });

  it.each([
    'services/users/src/console/routes.ts',
    'services/users/src/events/events.ts',
    'services/identity/src/flows/engine.ts',
    'apps/account/src/app/router.tsx',
    'apps/account/src/routes/callback.tsx',
    'apps/account/src/shared/oauth2/token-lifecycle.ts',
  ])('accepts %s as it is', async (filePath) => {
    expect(await cycleProblems(readFileSync(join(repo, filePath), 'utf8'), filePath)).toEqual([]);
  });

  it('lets an import through between two folders of identity’s known cycle', async () => {
    const code = "export * from '../flows/engine.ts';";
    expect(await cycleProblems(code, 'services/identity/src/http/probe.ts')).toEqual([]);
  });
});

describe("the user service's folder layers", () => {
  it.each([
    ['services/users/src/terms/probe.ts', "export { AppError } from '../http/errors.ts';", 'no other folder'],
    [
      'services/users/src/users/probe.ts',
      "export { recordEvent } from '../events/events.ts';",
      'may import only',
    ],
  ])('%s may not import what %s names', async (filePath, code, message) => {
    const [result] = await eslint.lintText(code, { filePath });
    const problems = (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports');
    expect(problems.map((m) => m.message)).toEqual([expect.stringContaining(message)]);
  });
});
