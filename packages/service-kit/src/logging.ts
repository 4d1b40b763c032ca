import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { logMixin } from './request-id.ts';

/**
 * Paths every service redacts, whatever else it adds: passwords, one-time and authorization codes,
 * tokens of every kind, cookies and Authorization headers. Redaction is the second line of defence:
 * code should not log these in the first place.
 */
export const COMMON_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-session-token"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'password',
  '*.password',
  'code',
  '*.code',
  'recovery_code',
  '*.recovery_code',
  'totp_code',
  '*.totp_code',
  'token',
  '*.token',
  'session_token',
  '*.session_token',
  'csrf_token',
  '*.csrf_token',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code_verifier',
  '*.client_secret',
];

/** A request as the logs show it: method, path without its query string (codes, state, tokens), IP. */
export function requestSummary(req: { method: string; url: string; ip?: string }) {
  return { method: req.method, url: req.url.split('?')[0], ip: req.ip };
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
