import { HTTP_CLIENT } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { readJson } from '../../shared/errors/http-error.ts';
import { traceHeaders } from '../../shared/tracing/trace-context.ts';

// The small JSON client of the m365 calls, with the generic HTTP client errors of the error catalogue:
// bad option, network error, request aborted, timeout exceeded, canceled, bad request or response
// status, unsupported protocol, and the required-parameter error.

export type HttpClientErrorCode =
  | 'ERR_BAD_OPTION'
  | 'ERR_NETWORK'
  | 'ECONNABORTED'
  | 'ETIMEDOUT'
  | 'ERR_CANCELED'
  | 'ERR_BAD_REQUEST'
  | 'ERR_BAD_RESPONSE'
  | 'ERR_UNSUPPORTED_PROTOCOL';

export class HttpClientError extends Error {
  readonly code: HttpClientErrorCode;
  readonly status: number | null;
  /** The parsed JSON body of a non-2xx answer (the user service's `{errorCode, message}`). */
  readonly body: unknown;
  constructor(
    code: HttpClientErrorCode,
    message: string,
    status: number | null = null,
    body: unknown = null,
  ) {
    super(message);
    this.name = 'HttpClientError';
    this.code = code;
    this.status = status;
    this.body = body;
  }
}

export class RequiredError extends Error {
  readonly field: string;
  constructor(field: string, operation: string) {
    super(copy.httpClient.requiredParameter(field, operation));
    this.name = 'RequiredError';
    this.field = field;
  }
}

/** Throws the required-parameter error when a mandatory parameter is null or undefined. */
export function assertParam<T>(value: T | null | undefined, field: string, operation: string): T {
  if (value === null || value === undefined) throw new RequiredError(field, operation);
  return value;
}

/**
 * The XSRF rule of the HTTP client defaults (`HTTP_CLIENT`): a request to the page's own origin
 * carries the `XSRF-TOKEN` cookie's value in the `X-XSRF-TOKEN` header; a request elsewhere never
 * does (the value must not leak to another origin).
 */
export function xsrfHeaders(url: string, pageOrigin: string, cookies: string): Record<string, string> {
  if (new URL(url, pageOrigin).origin !== pageOrigin) return {};
  const prefix = `${HTTP_CLIENT.xsrfCookie}=`;
  const entry = cookies
    .split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(prefix));
  if (!entry) return {};
  const value = decodeURIComponent(entry.slice(prefix.length));
  return value ? { [HTTP_CLIENT.xsrfHeader]: value } : {};
}

export interface PostJsonOptions {
  body: unknown;
  bearer?: string;
  /** 0 (the default) means no time-out. */
  timeoutMs?: number;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
}

export async function postJson<T>(url: string, options: PostJsonOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? HTTP_CLIENT.timeoutMs;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw new HttpClientError('ERR_BAD_OPTION', copy.httpClient.badOption('timeout', 'a number ≥ 0'));
  }
  const protocol = new URL(url, window.location.href).protocol;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new HttpClientError('ERR_UNSUPPORTED_PROTOCOL', copy.httpClient.unsupportedProtocol(protocol));
  }
  if (options.signal?.aborted) throw new HttpClientError('ERR_CANCELED', copy.httpClient.canceled);

  const controller = new AbortController();
  let reason: 'timeout' | 'canceled' | null = null;
  const onCancel = () => {
    reason = 'canceled';
    controller.abort();
  };
  options.signal?.addEventListener('abort', onCancel, { once: true });
  const timer =
    timeoutMs > 0
      ? setTimeout(() => {
          reason = 'timeout';
          controller.abort();
        }, timeoutMs)
      : null;

  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Content-Type': 'application/json',
    ...xsrfHeaders(url, window.location.origin, document.cookie),
    ...traceHeaders(),
  };
  if (options.bearer) headers.Authorization = `Bearer ${options.bearer}`;
  let res: Response;
  try {
    res = await (options.fetchImpl ?? fetch)(url, {
      method: 'POST',
      headers,
      body: JSON.stringify(options.body),
      signal: controller.signal,
    });
  } catch (error) {
    if (reason === 'timeout') throw new HttpClientError('ETIMEDOUT', copy.httpClient.timeout(timeoutMs));
    if (reason === 'canceled') throw new HttpClientError('ERR_CANCELED', copy.httpClient.canceled);
    if (error instanceof DOMException && error.name === 'AbortError') {
      throw new HttpClientError('ECONNABORTED', copy.httpClient.aborted);
    }
    throw new HttpClientError('ERR_NETWORK', copy.httpClient.networkError);
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
  const body = await readJson(res);
  if (!res.ok) {
    const code = res.status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST';
    throw new HttpClientError(code, copy.httpClient.badStatus(res.status), res.status, body);
  }
  return body as T;
}
