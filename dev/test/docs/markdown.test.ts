import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// Every Markdown file of the repository: its code fences are balanced and each opening fence names its
// language (so a stray fence, which turns the rest of a page into code, is caught), and every relative
// link leads to a file that exists, and to a heading that exists when it names one.
const ROOT = resolve(import.meta.dirname, '../../..');
const SKIP = new Set(['node_modules', '.git', 'dist', '.data', 'results', '.cache']);

function markdownFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...markdownFiles(path));
    else if (name.endsWith('.md')) found.push(path);
  }
  return found;
}

const FENCE = /^(\s*)(`{3,}|~{3,})(.*)$/;

/** Fence problems of one file: an opening fence without a language, or a block never closed. */
export function fenceProblems(text: string): string[] {
  const problems: string[] = [];
  let open: { marker: string; line: number } | undefined;
  text.split('\n').forEach((line, i) => {
    const m = FENCE.exec(line);
    if (!m) return;
    const marker = m[2]!;
    const info = m[3]!.trim();
    if (open) {
      if (marker[0] === open.marker[0] && marker.length >= open.marker.length && info === '')
        open = undefined;
      return;
    }
    if (info === '') problems.push(`line ${i + 1}: a code fence opens without naming its language`);
    open = { marker, line: i + 1 };
  });
  if (open) problems.push(`line ${open.line}: a code fence is never closed`);
  return problems;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

function withoutCode(text: string): string {
  return text.replace(/^(\s*)(`{3,}|~{3,})[\s\S]*?^\1\2\s*$/gm, '').replace(/`[^`\n]*`/g, '');
}

function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutCode(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/** Relative links of one file that lead nowhere (a missing file, or a missing heading of a Markdown file). */
export function brokenLinks(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const m of withoutCode(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    if (!existsSync(path)) {
      problems.push(`${target}: no such file`);
      continue;
    }
    if (anchor && path.endsWith('.md') && !anchorsOf(readFileSync(path, 'utf8')).has(anchor))
      problems.push(`${target}: no such heading`);
  }
  return problems;
}

describe('Markdown files', () => {
  const files = markdownFiles(ROOT);

  it('finds the README and the docs', () => {
    const names = files.map((f) => relative(ROOT, f));
    expect(names).toContain('README.md');
    expect(names).toContain('docs/security.md');
  });

  it('catches a stray fence, a fence without a language and a broken link (the checks can fail)', () => {
    expect(fenceProblems('text\n```\ncode\n```\n')).toEqual([
      'line 2: a code fence opens without naming its language',
    ]);
    expect(fenceProblems('```sh\nnpm start\n```\n\nmore\n```\n')).toContain(
      'line 6: a code fence is never closed',
    );
    expect(
      brokenLinks(join(ROOT, 'README.md'), '[x](docs/nowhere.md) [y](docs/security.md#no-such-heading)'),
    ).toEqual(['docs/nowhere.md: no such file', 'docs/security.md#no-such-heading: no such heading']);
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s: fences name their language and close', (_, file) => {
    expect(fenceProblems(readFileSync(file, 'utf8'))).toEqual([]);
  });

  it.each(files.map((f) => [relative(ROOT, f), f]))('%s: relative links lead somewhere', (_, file) => {
    expect(brokenLinks(file, readFileSync(file, 'utf8'))).toEqual([]);
  });
});

describe('the README', () => {
  it('is an entry page of at most 200 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });
});
