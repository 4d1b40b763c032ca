import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every rule the code and the docs rely on is stated in the repository: in words where it applies,
// or as a link to one of its own docs (docs/, docs/decisions/). A citation of a specification or
// design page the repository does not hold (a section of the product specification, the quality or
// conventions pages) sends a reader to something they cannot open, so none may appear in source or
// docs. The patterns are built from parts so that this file does not match itself.
const ROOT = resolve(import.meta.dirname, '../../..');
const SKIP = new Set([
  'node_modules',
  '.git',
  'dist',
  '.data',
  'results',
  '.cache',
  'coverage',
  'test-results',
]);
const TEXT = /\.(?:[cm]?[jt]sx?|md|json|ya?ml|sql|css|html|sh|conf|toml|txt)$|^Dockerfile/;
const SECTION = '\u00a7';
const DESIGN_PAGES = [
  'SPEC',
  'QUALITY',
  'CONVENTIONS',
  'ARCHITECTURE',
  'CONTRACT-NOTES',
  'CONTAINERS',
  'MICROSOFT',
];

const CITATIONS: RegExp[] = [
  // The specification or the quality page by name, with or without a section ("… §5", "… row").
  new RegExp(`\\b(?:${['SPEC', 'QUALITY'].join('|')})\\b`),
  // A design page by file name (the repository's own docs are lower case: docs/architecture.md).
  new RegExp(`\\b(?:${DESIGN_PAGES.join('|')})\\.md\\b`),
  // The conventions page by its name in capitals ("… flow rule 2").
  new RegExp(`\\b${DESIGN_PAGES[2]}\\b`),
  // A section sign after a page's name in capitals.
  new RegExp(`\\b[A-Z][A-Z-]{2,}\\s*${SECTION}`),
  // The folder those pages live in, outside the repository.
  new RegExp(`(?:\\.\\./)+shared/design\\b|/work/shared\\b`),
];

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (TEXT.test(name) && name !== 'package-lock.json') found.push(path);
  }
  return found;
}

/** The lines of `text` that cite a page the repository does not hold, as `line n: text`. */
export function citationsIn(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (CITATIONS.some((pattern) => pattern.test(line))) found.push(`line ${i + 1}: ${line.trim()}`);
  });
  return found;
}

describe('citations of pages the repository does not hold', () => {
  const files = sourceFiles(ROOT).filter((f) => f !== import.meta.filename);

  it('reads the source and the docs', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toContain('docs/security.md');
    expect(names).toContain('apps/account/src/shared/config/route-access.ts');
    expect(names).toContain('services/identity/src/password/policy.ts');
  });

  it('finds each kind of citation, and not the words that merely look alike (the check can fail)', () => {
    const cited = [
      `// ${'SPEC'} ${SECTION}5: a digit and a special character`,
      `describe('${'SPEC'} ${SECTION}9 constants')`,
      `see ${'SPEC'}.md`,
      `(${'QUALITY'}: p99 of admitted requests)`,
      `the ${'QUALITY'} row's second line`,
      `${'QUALITY'}.md, security`,
      `(${'CONVENTIONS'} flow rule 2)`,
      `${'CONTRACT-NOTES'}.md`,
      `../../${'shared'}/design/`,
    ];
    for (const line of cited) expect(citationsIn(line), line).toHaveLength(1);
    const fine = [
      'the specification fixes the rule (ADR 0014)',
      'see [the architecture](docs/architecture.md)',
      'OPENAPI_SPEC_URL and QUALITY_GATE_MS',
      'import { x } from "../shared/config/env.ts"',
      'a quality bar: p99 of admitted requests within 1 s',
    ];
    for (const line of fine) expect(citationsIn(line), line).toEqual([]);
  });

  it('no source file or doc cites a page outside the repository', () => {
    const found: Record<string, string[]> = {};
    for (const file of files) {
      const lines = citationsIn(readFileSync(file, 'utf8'));
      if (lines.length > 0) found[relative(ROOT, file)] = lines;
    }
    expect(found).toEqual({});
  });
});
