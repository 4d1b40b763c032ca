import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { logMixin } from './request-id.ts';
import { SECRET_FIELDS, SECRET_REQUEST_HEADERS, SECRET_RESPONSE_HEADERS, redactUrl } from './redaction.ts';

/**
 * Paths every service redacts, whatever else it adds: passwords, one-time and authorization codes,
 * tokens of every kind, cookies and Authorization headers (the lists in redaction.ts, which the
 * trace spans follow too). Redaction is the second line of defence: code should not log these in
 * the first place.
 */
export const COMMON_REDACT_PATHS = [
  ...SECRET_REQUEST_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`]),
  ...SECRET_RESPONSE_HEADERS.map((h) => `res.headers["${h}"]`),
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`]),
];

/** A request as the logs show it: method, path without its query string (codes, state, tokens), IP. */
export function requestSummary(req: { method: string; url: string; ip?: string }) {
  return { method: req.method, url: redactUrl(req.url), ip: req.ip };
}

/**
 * A service's root logger: JSON lines, the request id of the request being handled on every line
 * (`requestId`), secrets redacted, requests serialised without query strings.
 */
export function createServiceLogger(
  name: string,
  level: string,
  options: { redact?: string[]; destination?: DestinationStream } = {},
): Logger {
  const config: LoggerOptions = {
    name,
    level,
    mixin: logMixin,
    redact: {
      paths: [...new Set([...COMMON_REDACT_PATHS, ...(options.redact ?? [])])],
      censor: '[redacted]',
    },
    serializers: { req: requestSummary, err: pino.stdSerializers.err },
  };
  return options.destination ? pino(config, options.destination) : pino(config);
}
