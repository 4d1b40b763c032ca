import { fetchOnceMore, isIdempotent } from '@acme/service-kit/once-more';
import { requestIdHeaders } from '@acme/service-kit/request-id';
import { AppError } from '../http/errors.ts';

export interface JsonResponse {
  status: number;
  body: unknown;
}

export interface JsonRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
}

/**
 * One call to a service we depend on. Network failures, time-outs and non-JSON answers become
 * 502 `UPSTREAM_ERROR`; the caller interprets statuses. Bodies are never logged. An idempotent call
 * whose connection fails before any answer (a rolling restart) is sent once more.
 */
export async function requestJson(service: string, url: string, request: JsonRequest): Promise<JsonResponse> {
  const signal = AbortSignal.timeout(request.timeoutMs);
  const send = () =>
    fetch(url, {
      method: request.method,
      headers: {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...requestIdHeaders(),
        ...request.headers,
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
    });
  let response: Response;
  try {
    response = await (isIdempotent(request.method) ? fetchOnceMore(send, signal) : send());
  } catch {
    throw upstreamError(service, 'is unreachable');
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw upstreamError(service, 'closed the connection');
  }
  if (text.length === 0) return { status: response.status, body: undefined };
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    throw upstreamError(service, `answered ${response.status} with a body that is not JSON`);
  }
}

export function upstreamError(service: string, what: string): AppError {
  return new AppError('UPSTREAM_ERROR', `The ${service} ${what}.`);
}
