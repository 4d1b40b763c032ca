import { watchObjectPrototype } from './prototype-watch.ts';

/**
 * Requests that try to reach `Object.prototype` through `__proto__`, `constructor` and `prototype`
 * keys, nested and dotted, and the routes to send them to, read from a server's own route table so
 * that a new route is covered without a test naming it.
 */

export interface Route {
  method: string;
  /** The route's pattern, e.g. `/admin/users/:id`. */
  url: string;
}

/** A route table's line: the tree's drawing, the segment, and its methods in parentheses. */
const LINE = /^([│├└─\s]*)(\S.*?)(?: \(([A-Z, ]+)\))?$/;

/** A Fastify server, as far as its route table goes. */
interface RouteTable {
  printRoutes(options: { commonPrefix: boolean }): string;
}

/** Every route of a Fastify server (after `ready`), less HEAD and OPTIONS (answered by Fastify). */
export function fastifyRoutes(app: RouteTable): Route[] {
  const routes: Route[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = LINE.exec(line);
    if (!match || !match[2]) continue;
    const depth = Math.floor(match[1]!.length / 4);
    stack.length = depth;
    stack[depth] = match[2];
    const url = stack.join('');
    for (const method of (match[3] ?? '').split(',').map((m) => m.trim())) {
      if (method && method !== 'HEAD' && method !== 'OPTIONS') routes.push({ method, url });
    }
  }
  return routes;
}

/**
 * JSON bodies (as text: an object literal with `__proto__` would set its prototype instead). The
 * first ones name a prototype key as a key, which every service refuses with a 400 before any
 * handler runs; the last ones carry it in a path value, which only the routes that follow paths
 * (SCIM PATCH, JSON Patch) can refuse: elsewhere it is an ordinary string.
 */
export const PROTOTYPE_KEY_BODIES: readonly string[] = [
  '{"__proto__":{"polluted":"yes"}}',
  '{"a":{"constructor":{"prototype":{"polluted":"yes"}}}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"__proto__.polluted":"yes"}',
  '{"constructor.prototype.polluted":"yes"}',
  '{"traits":{"__proto__":{"polluted":"yes"}},"metadata_public":{"constructor":{"prototype":{"polluted":"yes"}}}}',
  '{"traits.__proto__.polluted":"yes","method":"profile"}',
  '[{"__proto__":{"polluted":"yes"}}]',
  // SCIM PATCH: dotted keys in a path-less value.
  '{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","value":{"__proto__.polluted":"yes","constructor.prototype.polluted":"yes"}}]}',
];
export const PROTOTYPE_PATH_BODIES: readonly string[] = [
  '{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","path":"constructor.prototype.polluted","value":"yes"}]}',
  '[{"op":"add","path":"/__proto__/polluted","value":"yes"}]',
  '[{"op":"add","path":"/constructor/prototype/polluted","value":"yes"}]',
  '[{"op":"replace","path":"/traits/constructor/prototype/polluted","value":"yes"}]',
];

/** Form bodies and query strings. */
export const PROTOTYPE_QUERIES: readonly string[] = [
  '__proto__[polluted]=yes',
  '__proto__.polluted=yes',
  'constructor.prototype.polluted=yes',
  'constructor[prototype][polluted]=yes',
  'traits.__proto__.polluted=yes&method=profile',
  'traits.constructor.prototype.polluted=yes&method=profile',
];

export interface Answer {
  route: Route;
  request: string;
  status: number;
  body: unknown;
  /** What changed on `Object.prototype` (empty when nothing did). */
  prototype: string[];
  /** Whether the request names a prototype key as a key (every service must refuse it). */
  namesKey: boolean;
}

/** `/a/:id/b/*` with each parameter filled (`params` first, then a well-formed UUID). */
export function fillPath(url: string, params: Record<string, string> = {}): string {
  return url
    .replace(/:(\w+)/g, (_, name: string) => params[name] ?? '00000000-0000-4000-8000-000000000000')
    .replace(/\*/g, 'x');
}

/**
 * Sends every attack to every route of `base` (JSON and form bodies to routes that take a body,
 * query strings to all), each answer with what it changed on `Object.prototype` of this process
 * (where the services under test run); the prototype is put back after each, so that one failure
 * does not hide the next.
 */
export async function sendPrototypeAttacks(
  base: string,
  routes: readonly Route[],
  options: { params?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const route of routes) {
    const path = fillPath(route.url, options.params);
    const attempts: { request: string; url: string; init: RequestInit; namesKey: boolean }[] =
      PROTOTYPE_QUERIES.map((query) => ({
        request: `?${query}`,
        url: `${base}${path}?${query}`,
        init: { method: route.method },
        namesKey: true,
      }));
    if (route.method !== 'GET') {
      const bodies = [
        ...PROTOTYPE_KEY_BODIES.map((body) => ({ body, namesKey: true })),
        ...PROTOTYPE_PATH_BODIES.map((body) => ({ body, namesKey: false })),
      ];
      for (const { body, namesKey } of bodies) {
        attempts.push({
          namesKey,
          request: body,
          url: `${base}${path}`,
          init: { method: route.method, headers: { 'content-type': 'application/json' }, body },
        });
      }
      for (const form of PROTOTYPE_QUERIES) {
        attempts.push({
          namesKey: true,
          request: `form ${form}`,
          url: `${base}${path}`,
          init: {
            method: route.method,
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: form,
          },
        });
      }
    }
    for (const attempt of attempts) {
      const watch = watchObjectPrototype();
      const headers = { accept: 'application/json', ...options.headers, ...attempt.init.headers };
      const res = await fetch(attempt.url, { ...attempt.init, headers, redirect: 'manual' });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      answers.push({
        route,
        request: attempt.request,
        status: res.status,
        body,
        prototype: watch.changes(),
        namesKey: attempt.namesKey,
      });
      watch.restore();
    }
  }
  return answers;
}
