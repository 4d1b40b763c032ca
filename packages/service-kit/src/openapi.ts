import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createDocument,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponsesObject,
  type ZodOpenApiSecuritySchemeObject,
} from 'zod-openapi';

/**
 * OpenAPI 3.1 documents generated from the zod schemas the routes validate with. A route declares
 * its shapes in its options (`{ config: { openapi: { query, body, responses } } }`), next to the
 * handler that parses with the same schema objects; `registerOpenApi` collects every route of a
 * listener and serves the document at `GET /openapi.json` on it.
 */

/** One answer: a JSON body's schema, `null` for none, or bodies by media type (CSV) and headers. */
export type RouteResponse =
  | z.ZodType
  | null
  | { description?: string; content?: Record<string, z.ZodType>; headers?: Record<string, string> };

/** What a route declares about its wire shapes. */
export interface RouteSchema {
  summary?: string;
  /** How the caller authenticates, as the document's security scheme names it. */
  security?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** A request body in another media type than JSON (a form post). */
  bodyType?: string;
  /** By status; `default` replaces the listener's error answer (an API with its own error shape). */
  responses: Partial<Record<number | 'default', RouteResponse>>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's wire shapes in the listener's OpenAPI document (`GET /openapi.json`). */
    openapi?: RouteSchema;
  }
}

export interface OpenApiOptions {
  title: string;
  description: string;
  version: string;
  /** The listener's error body: every operation's `default` answer. */
  errorSchema?: z.ZodType;
  /** Security schemes by name (e.g. `{ bearer: { type: 'http', scheme: 'bearer' } }`). */
  securitySchemes?: Record<string, ZodOpenApiSecuritySchemeObject>;
}

export interface RegisteredRoute {
  method: string;
  url: string;
  schema: RouteSchema | undefined;
}

const registries = new WeakMap<FastifyInstance, RegisteredRoute[]>();

export const OPENAPI_PATH = '/openapi.json';

const documentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
  .meta({ description: 'An OpenAPI 3.1 document.' });

/**
 * Collects the routes added to `app` from now on (call it before any route) and serves their
 * document at `GET /openapi.json`. HEAD and OPTIONS (added by the framework and CORS) are left out.
 */
export function registerOpenApi(app: FastifyInstance, options: OpenApiOptions): void {
  const routes: RegisteredRoute[] = [];
  registries.set(app, routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({ method, url: route.url, schema: route.config?.openapi });
    }
  });
  let document: unknown;
  app.get(
    OPENAPI_PATH,
    { config: { openapi: { summary: 'This document.', responses: { 200: documentSchema } } } },
    async (_request, reply) => {
      document ??= openApiDocument(routes, options);
      return reply.header('cache-control', 'no-cache').send(document);
    },
  );
}

/** Every route of the listener (HEAD and OPTIONS aside), with its declared schema if any. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  const routes = registries.get(app);
  if (!routes) throw new Error('registerOpenApi was not called on this listener');
  return routes;
}

/** `:id` → `{id}`; a regular-expression constraint is dropped. */
function openApiPath(url: string): { path: string; names: string[] } {
  const names: string[] = [];
  const path = url.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, (_m, name: string) => {
    names.push(name);
    return `{${name}}`;
  });
  return { path, names };
}

function operation(route: RegisteredRoute, options: OpenApiOptions): ZodOpenApiOperationObject {
  const { names } = openApiPath(route.url);
  const schema = route.schema!;
  const declared = schema.params ? Object.keys(schema.params.shape) : [];
  const missing = names.filter((n) => !declared.includes(n));
  const path =
    missing.length === 0
      ? schema.params
      : (schema.params ?? z.object({})).extend(Object.fromEntries(missing.map((n) => [n, z.string()])));
  const op: ZodOpenApiOperationObject = {
    operationId: `${route.method.toLowerCase()}${route.url.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c?: string) => (c ?? '').toUpperCase())}`,
    responses: {},
  };
  if (schema.summary) op.summary = schema.summary;
  if (schema.security) op.security = [{ [schema.security]: [] }];
  if (path || schema.query)
    op.requestParams = { ...(path ? { path } : {}), ...(schema.query ? { query: schema.query } : {}) };
  if (schema.body) {
    op.requestBody = {
      required: true,
      content: { [schema.bodyType ?? 'application/json']: { schema: schema.body } },
    };
  }
  const responses: Record<string, RouteResponse | undefined> = {
    ...(options.errorSchema ? { default: options.errorSchema } : {}),
    ...schema.responses,
  };
  const answers: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(responses)) {
    if (response !== undefined) answers[status] = responseObject(status, response);
  }
  op.responses = answers as ZodOpenApiResponsesObject;
  return op;
}

function responseObject(status: string, response: RouteResponse) {
  const fallback = status === 'default' ? 'An error.' : `HTTP ${status}.`;
  if (response === null) return { description: fallback };
  if (response instanceof z.ZodType) {
    return { description: fallback, content: { 'application/json': { schema: response } } };
  }
  return {
    description: response.description ?? fallback,
    ...(response.content
      ? {
          content: Object.fromEntries(
            Object.entries(response.content).map(([type, schema]) => [type, { schema }]),
          ),
        }
      : {}),
    ...(response.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(response.headers).map(([name, description]) => [
              name,
              { description, schema: { type: 'string' as const } },
            ]),
          ),
        }
      : {}),
  };
}

/** The document of `routes` (the undocumented ones left out: the tests list those). */
export function openApiDocument(routes: readonly RegisteredRoute[], options: OpenApiOptions): unknown {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    if (!route.schema) continue;
    const { path } = openApiPath(route.url);
    const item = (paths[path] ??= {}) as Record<string, ZodOpenApiOperationObject>;
    item[route.method.toLowerCase()] = operation(route, options);
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: { title: options.title, description: options.description, version: options.version },
      paths,
      ...(options.securitySchemes ? { components: { securitySchemes: options.securitySchemes } } : {}),
    },
    { reused: 'inline' },
  );
}

/** A route's options declaring its wire shapes: `app.get(url, openApi({ query, responses }), handler)`. */
export function openApi(schema: RouteSchema): { config: { openapi: RouteSchema } } {
  return { config: { openapi: schema } };
}
