import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { repoRoot } from '@acme/cluster/processes';
import { partSettingDocs, renderEnvExample, renderReference } from '@acme/service-kit/config-reference';
import { PARTS, generatedFiles } from '../../../scripts/configuration.ts';

/**
 * docs/configuration.md and deploy/env/<part>.env.example are generated from the parts' zod
 * schemas (`npm run config:docs`), so an operator reads exactly what the code parses.
 */
describe('the configuration reference', () => {
  it.each(Object.entries(generatedFiles()))(
    '%s is as generated now (run `npm run config:docs` after changing a setting)',
    (path, content) => {
      expect(readFileSync(join(repoRoot, path), 'utf8')).toBe(content);
    },
  );

  it('lists every variable of every part once per part, each with what it does', () => {
    for (const part of PARTS) {
      const names = partSettingDocs(part).map((s) => s.name);
      expect(new Set(names).size).toBe(names.length);
      for (const schema of part.schemas)
        for (const name of Object.keys(schema.shape)) expect(names, `${part.part}: ${name}`).toContain(name);
    }
    const reference = renderReference(PARTS);
    expect(reference).toContain('| `IDENTITY_CODE_SECRET` | string |');
    expect(reference).toContain('| `TRUST_PROXY` |');
  });

  it('marks every secret, with its *_FILE form, and never prints a secret default', () => {
    const identity = PARTS.find((p) => p.part === 'identity')!;
    const secrets = partSettingDocs(identity).filter((s) => s.secret);
    expect(secrets.map((s) => s.name)).toEqual(
      expect.arrayContaining(['IDENTITY_ADMIN_KEY', 'IDENTITY_CODE_SECRET', 'IDENTITY_SAML_SIGNING_KEY']),
    );
    const example = renderEnvExample(identity);
    expect(example).toContain('secret: yes\n#IDENTITY_CODE_SECRET=\n#IDENTITY_CODE_SECRET_FILE=');
    expect(example).not.toContain('development-only-code-secret');
    expect(renderReference(PARTS)).toContain('yes (or `IDENTITY_CODE_SECRET_FILE`)');
    expect(renderReference(PARTS)).not.toContain('development-only-code-secret');
  });

  it('names every old setting name beside its new one', () => {
    const oauth2 = PARTS.find((p) => p.part === 'oauth2')!;
    expect(partSettingDocs(oauth2).find((s) => s.name === 'OAUTH2_PUBLIC_URL')?.oldNames).toEqual(['ISSUER']);
    expect(renderEnvExample(oauth2)).toContain('old names: ISSUER\n#OAUTH2_PUBLIC_URL=');
    for (const part of PARTS) {
      const names = new Set(partSettingDocs(part).map((s) => s.name));
      for (const renamed of Object.keys(part.renames))
        expect(names, `${part.part}: ${renamed}`).toContain(renamed);
    }
  });

  it('refuses a setting without a description', () => {
    const part = { part: 'x', title: 'X', schemas: [z.object({ UNDOCUMENTED: z.string() })], renames: {} };
    expect(() => partSettingDocs(part)).toThrow(/UNDOCUMENTED has no \.describe\(\)/);
  });
});
