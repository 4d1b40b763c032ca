import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
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

  it('knows every variable the Kubernetes manifests and the image set (a renamed one would be ignored)', () => {
    const known = new Set(
      PARTS.flatMap((part) =>
        partSettingDocs(part).flatMap((s) => (s.secret ? [s.name, `${s.name}_FILE`] : [s.name])),
      ),
    );
    const set: string[] = [];
    const base = join(repoRoot, 'deploy', 'kubernetes', 'base');
    const collect = (node: unknown, key?: string): void => {
      if (Array.isArray(node)) for (const item of node) collect(item, key);
      else if (node !== null && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        if (key === 'env' && typeof record.name === 'string') set.push(record.name);
        if (record.kind === 'ConfigMap') set.push(...Object.keys(record.data as object));
        for (const [k, v] of Object.entries(record)) collect(v, k);
      }
    };
    for (const file of readdirSync(base).filter((f) => f.endsWith('.yaml')))
      for (const doc of parseAllDocuments(readFileSync(join(base, file), 'utf8'))) collect(doc.toJS());
    // The image's ENV, but for what the system reads (PATH) and glibc's allocator tunable.
    const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
    for (const [, block] of dockerfile.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm))
      set.push(...[...block!.matchAll(/([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1]!));
    const ignored = new Set(['PATH', 'MALLOC_MMAP_THRESHOLD_']);
    expect(set.length).toBeGreaterThan(20);
    expect([...new Set(set)].filter((name) => !known.has(name) && !ignored.has(name))).toEqual([]);
  });
});
