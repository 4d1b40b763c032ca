import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileMessage } from '@lingui/message-utils/compileMessage';
import { describe, expect, it } from 'vitest';
import { consoleDe } from '../features/admin-console/i18n/console.de.ts';
import { consoleEn } from '../features/admin-console/i18n/console.en.ts';
import { scimDe } from '../features/admin-console/i18n/scim.de.ts';
import { scimEn } from '../features/admin-console/i18n/scim.en.ts';
import { ssoDe } from '../features/admin-console/i18n/sso.de.ts';
import { ssoEn } from '../features/admin-console/i18n/sso.en.ts';
import { webhooksDe } from '../features/admin-console/i18n/webhooks.de.ts';
import { webhooksEn } from '../features/admin-console/i18n/webhooks.en.ts';
import { consentDe } from '../features/consent/i18n/consent.de.ts';
import { consentEn } from '../features/consent/i18n/consent.en.ts';
import { shellDe } from '../shared/shell/i18n/shell.de.ts';
import { shellEn } from '../shared/shell/i18n/shell.en.ts';
import { appDe } from './app.de.ts';
import { appEn } from './app.en.ts';
import { german } from '../app/german.ts';

// Every catalogue area: its English source and its German translation. A new `<area>.en.ts` that is
// not listed here fails the first test, so no area ships without German.
const AREAS = [
  { area: 'app', file: 'i18n/app.en.ts', en: appEn, de: appDe },
  { area: 'shell', file: 'shared/shell/i18n/shell.en.ts', en: shellEn, de: shellDe },
  { area: 'consent', file: 'features/consent/i18n/consent.en.ts', en: consentEn, de: consentDe },
  { area: 'console', file: 'features/admin-console/i18n/console.en.ts', en: consoleEn, de: consoleDe },
  { area: 'sso', file: 'features/admin-console/i18n/sso.en.ts', en: ssoEn, de: ssoDe },
  { area: 'scim', file: 'features/admin-console/i18n/scim.en.ts', en: scimEn, de: scimDe },
  { area: 'webhooks', file: 'features/admin-console/i18n/webhooks.en.ts', en: webhooksEn, de: webhooksDe },
] as const;

const SRC = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

type Leaf = { path: string[]; message: string; names: readonly string[] | null };

function leaves(node: object, path: string[] = []): Leaf[] {
  return Object.entries(node).flatMap(([key, value]): Leaf[] => {
    const at = [...path, key];
    if (typeof value === 'string') return [{ path: at, message: value, names: null }];
    if (Array.isArray(value)) return [{ path: at, message: value[0], names: value.slice(1) }];
    return leaves(value as object, at);
  });
}

/** The argument names a message uses, in any branch (`#` aside). */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (tokens: unknown) => {
    if (!Array.isArray(tokens)) return;
    for (const token of tokens) {
      if (!Array.isArray(token)) continue;
      const [name, , branches] = token as [string, unknown, Record<string, unknown> | undefined];
      names.add(name);
      for (const branch of Object.values(branches ?? {})) walk(branch);
    }
  };
  walk(compileMessage(message));
  return [...names].sort();
}

const keysOf = (catalogue: object) => leaves(catalogue).map((leaf) => leaf.path.join('.'));

describe('the message catalogues', () => {
  it('every English catalogue has its area here, and German ships for each', () => {
    const english = sourceFiles(SRC)
      .filter((file) => /\/i18n\/[\w-]+\.en\.ts$/.test(file))
      .map((file) => relative(SRC, file))
      .sort();
    expect(english).toEqual(AREAS.map((a) => a.file).sort());
    expect(Object.keys(german).sort()).toEqual(AREAS.map((a) => a.area).sort());
  });

  describe.each(AREAS)('$area', ({ en, de, area }) => {
    it('German has exactly the English keys: none missing, none extra', () => {
      expect(keysOf(de).sort()).toEqual(keysOf(en).sort());
      expect(german[area]).toBe(de);
    });

    it('every message compiles, and German fills exactly the arguments English declares', () => {
      const translated = new Map(leaves(de).map((leaf) => [leaf.path.join('.'), leaf.message]));
      for (const leaf of leaves(en)) {
        const id = `${area}.${leaf.path.join('.')}`;
        const used = argumentsOf(leaf.message);
        expect([id, used]).toEqual([id, [...(leaf.names ?? [])].sort()]);
        expect([id, argumentsOf(translated.get(leaf.path.join('.')) ?? '')]).toEqual([id, used]);
      }
    });

    it('every key is read by some screen (no unused key)', () => {
      const code = sourceFiles(SRC)
        .filter((file) => !/\/i18n\/|\.test\.tsx?$/.test(file))
        .map((file) => readFileSync(file, 'utf8'))
        .join('\n');
      const read = (name: string) =>
        new RegExp(`\\.${name}\\b|\\b${name}\\(\\)|get '?${name}'?\\(`).test(code);
      // A map read by a value (`methods[method]`) counts for every key in it.
      const indexed = (name: string) => new RegExp(`\\.${name}\\[`).test(code);
      const unused = leaves(en)
        .filter((leaf) => {
          const name = leaf.path.at(-1)!;
          const parent = leaf.path.at(-2);
          return !(/^\w+$/.test(name) && read(name)) && !(parent && indexed(parent));
        })
        .map((leaf) => leaf.path.join('.'));
      expect(unused).toEqual([]);
    });
  });
});
