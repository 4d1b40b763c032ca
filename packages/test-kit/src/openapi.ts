import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

/**
 * Validates an answer against Ory's published OpenAPI document (fixtures/ory-openapi): the schema of
 * `paths[path][method].responses[status]` (or `default`), JSON content. OpenAPI 3.0's `nullable` is
 * understood; formats and vendor keywords are not checked.
 */

type Json = Record<string, unknown>;

export type OryApi = 'kratos' | 'hydra';

const documents = new Map<OryApi, { doc: Json; ajv: Ajv }>();

function load(api: OryApi) {
  let entry = documents.get(api);
  if (!entry) {
    const file = new URL(`../fixtures/ory-openapi/${api}-api.json`, import.meta.url);
    const doc = openApiNullable(JSON.parse(readFileSync(file, 'utf8'))) as Json;
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(doc, api);
    entry = { doc, ajv };
    documents.set(api, entry);
  }
  return entry;
}

/** The statuses the document lists for an operation (e.g. `['200', 'default']`). */
export function documentedStatuses(api: OryApi, path: string, method: string): string[] {
  const op = ((load(api).doc.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as
    Json | undefined;
  if (!op) throw new Error(`${api}: ${method} ${path} is not in the document`);
  return Object.keys(op.responses as Json);
}

/**
 * Checks `body` against the documented response of `status`. Returns the validation errors as
 * strings (empty when valid); throws when the document has no such operation or response.
 */
export function openApiErrors(
  api: OryApi,
  path: string,
  method: string,
  status: number,
  body: unknown,
  /** Validate against this documented response instead (e.g. `default` for a herodot error). */
  responseKey?: string,
): string[] {
  const { doc, ajv } = load(api);
  const op = ((doc.paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
  if (!op) throw new Error(`${api}: ${method} ${path} is not in the document`);
  const responses = op.responses as Json;
  let response = (responses[responseKey ?? String(status)] ?? responses.default) as Json | undefined;
  if (!response) throw new Error(`${api}: ${method} ${path} documents no ${status} answer`);
  if (typeof response.$ref === 'string') {
    const name = response.$ref.replace('#/components/responses/', '');
    response = ((doc.components as Json).responses as Json)[name] as Json;
  }
  const schema = ((response.content as Json | undefined)?.['application/json'] as Json | undefined)
    ?.schema as Json | undefined;
  if (!schema)
    return body === undefined || body === '' || body === null ? [] : ['the document defines no body'];
  const ref = typeof schema.$ref === 'string' ? `${api}${schema.$ref}` : undefined;
  const validate = ref ? ajv.getSchema(ref) : ajv.compile(rewriteRefs(schema, api) as object);
  if (!validate) throw new Error(`${api}: cannot resolve ${String(schema.$ref)}`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}

/**
 * Checks `body` against one of our own served documents (`GET /openapi.json`, OpenAPI 3.1): the
 * schema of `paths[path][method].responses[status]` (or `default`) for `contentType`. Returns the
 * validation errors as strings (empty when valid); throws when the document has no such operation
 * or answer.
 */
export function servedOpenApiErrors(
  doc: unknown,
  path: string,
  method: string,
  status: number,
  body: unknown,
  contentType = 'application/json',
): string[] {
  const op = (((doc as Json).paths as Json)[path] as Json | undefined)?.[method.toLowerCase()] as
    Json | undefined;
  if (!op) throw new Error(`${method} ${path} is not in the document`);
  const responses = op.responses as Json;
  const response = (responses[String(status)] ?? responses.default) as Json | undefined;
  if (!response) throw new Error(`${method} ${path} documents no ${status} answer`);
  const schema = ((response.content as Json | undefined)?.[contentType] as Json | undefined)?.schema;
  if (!schema) {
    return body === undefined || body === '' || body === null
      ? []
      : [`the document defines no ${contentType} body for ${status}`];
  }
  let validate = served.get(schema as object);
  if (!validate) {
    validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(
      schema as object,
    );
    served.set(schema as object, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}

const served = new WeakMap<object, ReturnType<Ajv2020['compile']>>();

/** OpenAPI 3.0's `nullable` without a `type` (e.g. next to `$ref`) becomes `anyOf [schema, null]`. */
function openApiNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openApiNullable);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = openApiNullable(v);
  if (out.nullable === true && out.type === undefined) {
    const { nullable: _nullable, ...rest } = out;
    return { anyOf: [rest, { type: 'null' }] };
  }
  return out;
}

/** Inline schemas refer to `#/components/…` of the document: point them at the added document. */
function rewriteRefs(schema: unknown, api: OryApi): unknown {
  if (Array.isArray(schema)) return schema.map((s) => rewriteRefs(s, api));
  if (schema && typeof schema === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(schema)) {
      out[k] =
        k === '$ref' && typeof v === 'string' && v.startsWith('#') ? `${api}${v}` : rewriteRefs(v, api);
    }
    return out;
  }
  return schema;
}

/** The template of `doc` a concrete path answers to (`/members/1` → `/members/{userId}`), or undefined. */
export function documentedPath(doc: unknown, pathname: string): string | undefined {
  const templates = Object.keys((doc as Json).paths as Json);
  if (templates.includes(pathname)) return pathname;
  return templates.find((t) =>
    new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`).test(
      pathname,
    ),
  );
}

/** `METHOD path` with every path parameter written `{}`, for OpenAPI's `{id}` and fastify's `:id` alike. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]+\}|:[A-Za-z0-9_]+/g, '{}')}`;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Every operation of a document (`operationKey`), sorted. */
export function documentOperations(doc: unknown): string[] {
  return Object.entries((doc as Json).paths as Record<string, Json>)
    .flatMap(([path, item]) =>
      Object.keys(item)
        .filter((m) => METHODS.includes(m))
        .map((m) => operationKey(m, path)),
    )
    .sort();
}

/** Every operation in Ory's document (`operationKey`). */
export function oryOperations(api: OryApi): string[] {
  return documentOperations(load(api).doc);
}
