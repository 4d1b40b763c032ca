import { readFileSync } from 'node:fs';
import type { ScimAnswer, ScimCall } from './scim-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

interface Fixture {
  _source: string;
  method: string;
  path: string;
  body?: unknown;
}

/**
 * A provisioning client that replays the checked-in requests of `fixtures/<vendor>/<name>.json`
 * (see fixtures/README.md), with `{{…}}` filled in and the query string encoded as a client does.
 */
export function provisioningClient(vendor: 'entra' | 'okta', scim: ScimCall, vars: Record<string, string>) {
  return async (name: string, token?: string): Promise<ScimAnswer> => {
    const text = readFileSync(new URL(`./fixtures/${vendor}/${name}.json`, import.meta.url), 'utf8');
    const filled = text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
      const value = vars[key];
      if (value === undefined) throw new Error(`fixture ${name}: no value for {{${key}}}`);
      return value;
    });
    const fixture = JSON.parse(filled) as Fixture;
    if (!fixture._source.startsWith('https://')) throw new Error(`fixture ${name} names no source`);
    const [path, query] = fixture.path.split('?') as [string, string | undefined];
    const encoded = query === undefined ? path : `${path}?${new URLSearchParams(query).toString()}`;
    return scim(fixture.method, encoded, fixture.body as any, token === undefined ? {} : { token });
  };
}
