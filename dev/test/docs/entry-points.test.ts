import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTestDb, migrate, type Database } from '@acme/db';
import * as agent from '@acme/agent';
import * as identity from '@acme/identity';
import * as oauth2 from '@acme/oauth2';
import * as users from '@acme/users';
import { fastifyRoutes } from '@acme/test-kit/prototype-attacks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES as OAUTH2_PUBLIC_ROUTES } from '../../../services/oauth2/src/provider.ts';
import { AUTHORIZATION_SERVER_METADATA } from '../../../services/oauth2/src/public/discovery.ts';
import { REGISTRATION_ROUTE } from '../../../services/oauth2/src/public/registration.ts';

// The threat model's entry points (docs/security.md, "Entry points") against the services' own route
// tables: every route a server registers is listed in a row of that server, and every pattern of a
// row matches a route, so a new route cannot arrive without its entry point, and a removed one does
// not linger. The services are built as `npm start` builds them (default configuration) on one
// throwaway database; nothing listens.
const ROOT = resolve(import.meta.dirname, '../../..');

/** Rows kept by hand: parts without a server route table of their own (the management port is a
 * plain server of three routes, service-kit's management.ts). */
const HAND_KEPT = new Set(['account app', '`npm run admin` CLI', 'mail', 'every part, management']);

/**
 * The authorization server's public side is oidc-provider's, not a Fastify route table: its routes
 * are the `ROUTES` table, discovery (OpenID and RFC 8414), dynamic registration (RFC 7591/7592) and
 * the health and version routes beside them (the same set as the public handler's known paths in
 * `services/oauth2/src/app.ts`).
 */
const OAUTH2_PUBLIC = [
  ...Object.values(OAUTH2_PUBLIC_ROUTES),
  '/.well-known/openid-configuration',
  AUTHORIZATION_SERVER_METADATA,
  REGISTRATION_ROUTE,
  `${REGISTRATION_ROUTE}/:id`,
  '/health/alive',
  '/health/ready',
  '/version',
];

interface Row {
  server: string;
  patterns: string[];
}

/** The rows of the "Entry points" table: the server cell and the code spans of the routes cell. */
export function entryPointRows(markdown: string): Row[] {
  const section = markdown.split(/^## /m).find((s) => s.startsWith('Entry points\n'));
  if (!section) return [];
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) => {
      const [server = '', routes = ''] = line.split('|').slice(1, 3);
      return { server: server.trim(), patterns: [...routes.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) };
    });
}

/** Whether `pattern` matches `path`: `/x/*` is `/x` and everything below it; anything else exactly. */
export function matches(pattern: string, path: string): boolean {
  if (!pattern.endsWith('/*')) return pattern === path;
  const base = pattern.slice(0, -2);
  return path === base || path.startsWith(`${base}/`);
}

/** Per server: the routes no row of that server lists, the patterns that match no route, unknown rows. */
export function entryPointGaps(rows: Row[], servers: Record<string, string[]>) {
  const unlisted: string[] = [];
  const stale: string[] = [];
  for (const [server, paths] of Object.entries(servers)) {
    const patterns = rows.filter((r) => r.server === server).flatMap((r) => r.patterns);
    for (const path of paths) if (!patterns.some((p) => matches(p, path))) unlisted.push(`${server} ${path}`);
    for (const p of patterns) if (!paths.some((path) => matches(p, path))) stale.push(`${server} ${p}`);
  }
  const unknown = rows.map((r) => r.server).filter((s) => !(s in servers) && !HAND_KEPT.has(s));
  return { unlisted, stale, unknown: [...new Set(unknown)] };
}

interface RouteTable {
  printRoutes(options: { commonPrefix: boolean }): string;
  ready(): PromiseLike<unknown>;
  close(): PromiseLike<unknown>;
}
const isRouteTable = (value: unknown): value is RouteTable =>
  typeof value === 'object' && value !== null && 'printRoutes' in value;

/** Every Fastify server a service's `createApp` answers with, by its name there (public, admin…). */
async function serverPaths(service: string, app: object): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const [name, server] of Object.entries(app)) {
    if (!isRouteTable(server)) continue;
    await server.ready();
    found[`${service}, ${name}`] = [...new Set(fastifyRoutes(server).map((r) => r.url))];
    await server.close();
  }
  return found;
}

describe('the threat model lists every entry point of the route tables', () => {
  let db: Database;
  const servers: Record<string, string[]> = {};

  beforeAll(async () => {
    db = await createTestDb();
    for (const service of [identity, oauth2, users, agent])
      for (const set of service.migrationSets) await migrate(db, set.namespace, set.migrations);
    Object.assign(
      servers,
      await serverPaths(
        'identity',
        await identity.createApp({ config: identity.loadConfig({ LOG_LEVEL: 'silent' }), db, logger: false }),
      ),
      await serverPaths(
        'oauth2',
        await oauth2.createApp({ config: oauth2.loadConfig({}), db, logger: false }),
      ),
      await serverPaths('users', await users.createApp({ config: users.loadConfig({}), db, logger: false })),
      await serverPaths('agent', await agent.createApp({ config: agent.loadConfig({}), db, logger: false })),
      { 'oauth2, public': OAUTH2_PUBLIC },
    );
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it("reads each service's public and admin route tables", () => {
    expect(Object.keys(servers).sort()).toEqual(
      [
        'agent, admin',
        'agent, public',
        'identity, admin',
        'identity, public',
        'oauth2, admin',
        'oauth2, public',
        'users, admin',
        'users, public',
      ].sort(),
    );
    expect(servers['users, public']).toContain('/scim/v2/Users/:id');
    expect(servers['oauth2, public']).toContain('/oauth2/device/auth');
  });

  it('docs/security.md lists every route of each server in a row of that server, and nothing else', () => {
    const rows = entryPointRows(readFileSync(resolve(ROOT, 'docs/security.md'), 'utf8'));
    expect(rows.length).toBeGreaterThan(10);
    expect(entryPointGaps(rows, servers)).toEqual({ unlisted: [], stale: [], unknown: [] });
  });

  it('the check fails on an unlisted route, a stale pattern and a row of an unknown server', () => {
    const table = [
      '## Entry points',
      '',
      '| server | routes | who | defences |',
      '| --- | --- | --- | --- |',
      '| users, public | `/login/*`, `/gone` | browsers | limits |',
      '| users, pubilc | `/scim/v2/*` | directories | tokens |',
      '| mail | codes | readers | short-lived |',
      '',
    ].join('\n');
    const gaps = entryPointGaps(entryPointRows(table), {
      'users, public': ['/login/config', '/login', '/scim/v2/Users'],
    });
    expect(gaps).toEqual({
      unlisted: ['users, public /scim/v2/Users'],
      stale: ['users, public /gone'],
      unknown: ['users, pubilc'],
    });
    expect(matches('/login/*', '/loginx')).toBe(false);
  });
});
