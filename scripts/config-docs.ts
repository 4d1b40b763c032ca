// `npm run config:docs`: writes the configuration reference, docs/configuration.md, and every
// part's deploy/env/<part>.env.example, from the parts' zod schemas (scripts/configuration.ts).
// A test fails when a file on disk is not what this writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '@acme/cluster/processes';
import { generatedFiles } from './configuration.ts';

for (const [path, content] of Object.entries(generatedFiles())) {
  const target = join(repoRoot, path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  console.log(`wrote ${path}`);
}
