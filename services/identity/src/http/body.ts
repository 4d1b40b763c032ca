import type { FastifyInstance, FastifyRequest } from 'fastify';
import { refusedInput } from '@acme/service-kit/input';
import { IdentityError, errors } from '../errors/identity-error.ts';

/**
 * Every body is read as a string (within the body limit) and decoded by the route, so that malformed
 * JSON and unknown content types get the Kratos envelope rather than Fastify's.
 */
export function registerRawBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
}

/**
 * Why a body does not decode, in English (the error envelope's `reason`; on a self-service flow the
 * catalogue's `bodyNotJson`/`bodyNotObject` say it in the reader's locale).
 */
export const BODY_REFUSALS = {
  notJson: 'Unable to decode JSON payload: the body is not valid JSON.',
  notObject: 'Unable to decode JSON payload: expected a JSON object.',
} as const;

function mediaType(req: FastifyRequest): string {
  return (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

/** NUL, lone surrogates and prototype keys (`__proto__`, `constructor`, `prototype`): a 400. */
function refuseInput(parsed: unknown): void {
  const refused = refusedInput(parsed);
  if (refused) throw errors.badRequest(refused);
}

/**
 * The body as the routes would decode it (JSON or form), for the checks every request gets before
 * its handler, including a route that never reads its body; undefined when there is none or it does
 * not decode (the route answers that itself).
 */
export function decodedBodyOf(req: FastifyRequest): unknown {
  const raw = typeof req.body === 'string' ? req.body : '';
  if (raw === '') return undefined;
  const type = mediaType(req);
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw));
  if (type !== 'application/json') return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** JSON bodies only (admin API): 415 for other types, 400 for malformed JSON. */
export function readJson(req: FastifyRequest): unknown {
  const raw = typeof req.body === 'string' ? req.body : '';
  if (mediaType(req) !== 'application/json') {
    throw new IdentityError(415, { reason: 'The request body must be application/json.' });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw errors.badRequest(BODY_REFUSALS.notJson);
  }
  refuseInput(parsed);
  return parsed;
}

/**
 * Self-service bodies: JSON or form-encoded, as Kratos's decoder accepts. Returns a flat record
 * (form values are strings; nested JSON values are kept). 415 for other content types; a decoding
 * problem is a plain 400 that the flow handler turns into message 4000001.
 */
export function readFormOrJson(req: FastifyRequest): Record<string, unknown> {
  const raw = typeof req.body === 'string' ? req.body : '';
  const type = mediaType(req);
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw errors.badRequest(BODY_REFUSALS.notJson);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw errors.badRequest(BODY_REFUSALS.notObject);
    }
    refuseInput(parsed);
    return parsed as Record<string, unknown>;
  }
  if (type === 'application/x-www-form-urlencoded') {
    // The first value of each name, on an object without a prototype.
    const out = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of new URLSearchParams(raw)) if (!Object.hasOwn(out, k)) out[k] = v;
    refuseInput(out);
    return out;
  }
  throw new IdentityError(415, {
    reason: `Unable to decode the request body: Content-Type "${type.slice(0, 100) || '(none)'}" is not supported; use application/json or application/x-www-form-urlencoded.`,
  });
}
