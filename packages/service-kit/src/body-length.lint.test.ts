import { ESLint } from 'eslint';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The repository's own lint configuration (eslint.config.js), run on code placed in the app. */
const repo = join(import.meta.dirname, '..', '..', '..');
const eslint = new ESLint({ cwd: repo });

async function lengthProblems(code: string, filePath: string) {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'acme/max-body-lines' || m.ruleId === 'max-lines-per-function')
    .map((m) => m.message);
}

/** A function body of `lines` statements, with blank and comment lines between that do not count. */
const statements = (lines: number) =>
  Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};\n\n  // a comment\n`).join('');

const component = (lines: number) =>
  `export function LongSection() {\n${statements(lines - 3)}  return <p>{v0}</p>;\n}\n`;
const hook = (lines: number) => `export function useLongThing() {\n${statements(lines - 3)}  return v0;\n}\n`;

describe('the lint rule on long bodies in the app', () => {
  it('refuses a component over 120 lines in a .tsx file', async () => {
    expect(await lengthProblems(component(121), 'apps/account/src/features/probe/probe.tsx')).toEqual([
      expect.stringContaining("Component 'LongSection' has 121 lines (at most 120)"),
    ]);
  });

  it('accepts a component of 120 lines, blank and comment lines not counted', async () => {
    expect(await lengthProblems(component(120), 'apps/account/src/features/probe/probe.tsx')).toEqual([]);
  });

  it('refuses a hook over 80 lines in a .tsx file, as in a use-*.ts file', async () => {
    expect(await lengthProblems(hook(81), 'apps/account/src/features/probe/probe.tsx')).toEqual([
      expect.stringContaining("Hook 'useLongThing' has 81 lines (at most 80)"),
    ]);
    expect(await lengthProblems(hook(81), 'apps/account/src/features/probe/use-probe.ts')).toEqual([
      expect.stringContaining('Maximum allowed is 80'),
    ]);
  });

  it('refuses an arrow-function component assigned to a name', async () => {
    const code = `export const LongCard = () => {\n${statements(125)}  return <p>{v0}</p>;\n};\n`;
    expect(await lengthProblems(code, 'apps/account/src/shared/ui/probe.tsx')).toEqual([
      expect.stringContaining("Component 'LongCard'"),
    ]);
  });

  it.each([
    'apps/account/src/features/admin-console/member-section.tsx',
    'apps/account/src/features/m365/m365-login-screen.tsx',
    'apps/account/src/features/admin-console/sso-section.tsx',
  ])('accepts %s as it is', async (filePath) => {
    expect(await lengthProblems(readFileSync(join(repo, filePath), 'utf8'), filePath)).toEqual([]);
  });
});
