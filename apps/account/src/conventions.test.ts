import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Imports flow one way (shared → features → app) and features never import each other.
// The root ESLint config is not this app's to change, so the rule is checked here by reading the tree.

const srcDir = dirname(fileURLToPath(import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Relative import specifiers of a module (static `from '…'`, side-effect `import '…'` and `import('…')`). */
function relativeImports(code: string): string[] {
  const specifiers = [...code.matchAll(/(?:from\s+|import\s*\(?\s*)'(\.{1,2}\/[^']+)'/g)].map(
    (m) => m[1] ?? '',
  );
  return specifiers.filter(Boolean);
}

/** `['features', 'login']`, `['shared', 'ui']`, `['app']`, `['copy.ts']`: where a file sits under src. */
function area(file: string): string[] {
  return relative(srcDir, file).split(sep);
}

interface Edge {
  from: string;
  to: string;
}

function edges(): Edge[] {
  return sourceFiles(srcDir).flatMap((file) =>
    relativeImports(readFileSync(file, 'utf8')).map((spec) => ({
      from: relative(srcDir, file),
      to: relative(srcDir, resolve(dirname(file), spec)),
    })),
  );
}

const isTest = (path: string) => /\.test\.tsx?$/.test(path);

describe('source layout', () => {
  const all = edges();

  it('reads the tree', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it('a feature never imports another feature', () => {
    const crossing = all.filter(({ from, to }) => {
      const [fromTop, fromFeature] = area(join(srcDir, from));
      const [toTop, toFeature] = area(join(srcDir, to));
      return fromTop === 'features' && toTop === 'features' && fromFeature !== toFeature;
    });
    expect(crossing).toEqual([]);
  });

  it('shared code never imports features, routes or the app', () => {
    const upward = all.filter(({ from, to }) => {
      const fromTop = area(join(srcDir, from))[0];
      const toTop = area(join(srcDir, to))[0];
      return fromTop === 'shared' && ['features', 'routes', 'app'].includes(toTop ?? '');
    });
    expect(upward).toEqual([]);
  });

  it('feature modules never import routes or the app (tests may mount the router)', () => {
    const upward = all.filter(({ from, to }) => {
      const fromTop = area(join(srcDir, from))[0];
      const toTop = area(join(srcDir, to))[0];
      return fromTop === 'features' && !isTest(from) && ['routes', 'app'].includes(toTop ?? '');
    });
    expect(upward).toEqual([]);
  });

  it('no barrel files', () => {
    const barrels = sourceFiles(srcDir).filter((file) => /^index\.tsx?$/.test(file.split(sep).pop() ?? ''));
    expect(barrels.map((file) => relative(srcDir, file))).toEqual([]);
  });

  // A test of the whole folder is named after the folder (routes/routes.test.tsx); this file checks
  // the whole tree.
  it('tests sit beside the file they test: x.test.ts or x.<aspect>.test.ts, never in a test folder', () => {
    const misplaced = sourceFiles(srcDir)
      .filter(isTest)
      .map((file) => relative(srcDir, file))
      .filter((file) => {
        const parts = file.split(sep);
        if (parts.some((p) => p === 'test' || p === '__tests__')) return true;
        const name = parts.pop() ?? '';
        const subject = name.replace(/(\.[a-z-]+)?\.test\.tsx?$/, '');
        if (subject === (parts.at(-1) ?? 'conventions')) return false;
        const siblings = readdirSync(join(srcDir, ...parts));
        return !siblings.some((s) => s.startsWith(`${subject}.`) && !isTest(s));
      });
    expect(misplaced).toEqual([]);
  });

  it('context objects are named …Context (no Deps or Ctx)', () => {
    const offenders = sourceFiles(srcDir)
      .filter((file) => /\b(interface|type)\s+\w*(Deps|Ctx)\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(srcDir, file));
    expect(offenders).toEqual([]);
  });
});
