import { traceHeaders } from '../tracing/trace-context.ts';

/** A non-2xx answer from one of our services, with its parsed JSON body (if any). */
export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, statusText: string, body: unknown) {
    super(HttpError.describe(status, statusText, body));
    this.name = 'HttpError';
    this.status = status;
    this.body = body;
  }

  static describe(status: number, statusText: string, body: unknown): string {
    if (body && typeof body === 'object') {
      const b = body as { error?: { message?: unknown; reason?: unknown }; message?: unknown };
      if (typeof b.error?.message === 'string' && b.error.message) return b.error.message;
      if (typeof b.message === 'string' && b.message) return b.message;
    }
    return `HTTP Error ${status} ${statusText}`.trim();
  }
}

export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export interface JsonRequestInit {
  method?: string;
  body?: unknown;
  credentials?: RequestCredentials;
  headers?: Record<string, string>;
  fetchImpl?: typeof fetch;
}

/** JSON request; resolves the parsed body of a 2xx answer, throws HttpError otherwise. */
export async function requestJson<T>(url: string, init: JsonRequestInit = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...traceHeaders(), ...init.headers };
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const fetchImpl = init.fetchImpl ?? fetch;
  const res = await fetchImpl(url, {
    method: init.method ?? 'GET',
    credentials: init.credentials,
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = await readJson(res);
  if (!res.ok) throw new HttpError(res.status, res.statusText, body);
  return body as T;
}
