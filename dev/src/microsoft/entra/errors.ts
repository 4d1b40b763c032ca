import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { escapeHtml, sendPage } from '../../html.ts';

/** An OAuth2 error as Entra writes it. */
export class EntraError extends Error {
  readonly error: string;
  readonly code: number;
  readonly description: string;
  readonly status: number;
  readonly suberror: string | undefined;
  constructor(error: string, code: number, description: string, status = 400, suberror?: string) {
    super(`AADSTS${code}: ${description}`);
    this.error = error;
    this.code = code;
    this.description = description;
    this.status = status;
    this.suberror = suberror;
  }
}

function entraTimestamp(now: Date): string {
  return now
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

function entraErrorBody(err: EntraError, now: Date): Record<string, unknown> {
  const traceId = randomUUID();
  const correlationId = randomUUID();
  const timestamp = entraTimestamp(now);
  return {
    error: err.error,
    error_description: `AADSTS${err.code}: ${err.description} Trace ID: ${traceId} Correlation ID: ${correlationId} Timestamp: ${timestamp}`,
    error_codes: [err.code],
    timestamp,
    trace_id: traceId,
    correlation_id: correlationId,
    ...(err.suberror ? { suberror: err.suberror } : {}),
    error_uri: `https://login.microsoftonline.com/error?code=${err.code}`,
  };
}

/** Entra's JSON error body (token and discovery endpoints). */
export function sendError(reply: FastifyReply, err: EntraError, now: Date): FastifyReply {
  return reply.code(err.status).header('cache-control', 'no-store').send(entraErrorBody(err, now));
}

/** Entra's error page (authorize endpoint, before a redirect URI is trusted). */
export function errorPage(reply: FastifyReply, err: EntraError): FastifyReply {
  return sendPage(
    reply.code(400),
    'Sign in to your account',
    `<header>Microsoft</header>
<main><div class="card">
<h1>Sorry, but we're having trouble signing you in.</h1>
<p id="error">${escapeHtml(err.message)}</p>
</div></main>`,
  );
}

/** The 700016 error: no application with this client id. */
export function unknownClient(clientId: string | undefined, error = 'unauthorized_client'): EntraError {
  return new EntraError(
    error,
    700016,
    `Application with identifier '${clientId ?? ''}' was not found in the directory.`,
  );
}

/** The 50034 error: the account is not in the directory. */
export function unknownUser(): EntraError {
  return new EntraError('invalid_grant', 50034, 'The user account does not exist in the directory.');
}
