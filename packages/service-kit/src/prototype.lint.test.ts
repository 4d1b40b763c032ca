import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The repository's own lint configuration (eslint.config.js), run on a snippet placed in a service. */
const eslint = new ESLint({ cwd: join(import.meta.dirname, '..', '..', '..') });

async function problems(code: string, filePath = 'services/users/src/example.ts') {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('the lint rule against `in` on request data', () => {
  it.each([
    "export const f = (body: object) => 'method' in body;",
    "export const f = (request: { body: object }) => 'organisationId' in request.body;",
    "export const f = (req: { query: object }) => 'flow' in req.query;",
    "export const f = (params: object) => 'id' in params;",
    "export const f = (token: { data: object }) => 'error' in token.data;",
  ])('refuses %s', async (code) => {
    expect(await problems(code)).toEqual([expect.stringContaining('hasOwnKey')]);
  });

  it('refuses it in packages and the stand-ins too', async () => {
    const code = "export const f = (body: object) => 'x' in body;";
    expect(await problems(code, 'packages/service-kit/src/example.ts')).toHaveLength(1);
    expect(await problems(code, 'dev/src/example.ts')).toHaveLength(1);
  });

  it.each([
    "import { hasOwnKey } from '@acme/service-kit/prototype';\nexport const f = (body: object) => hasOwnKey(body, 'method');",
    "export const f = (body: object) => Object.hasOwn(body, 'method');",
    "export const f = (outcome: object) => 'reply' in outcome;",
  ])('accepts %s', async (code) => {
    expect(await problems(code)).toEqual([]);
  });
});
