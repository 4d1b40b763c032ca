import { copy } from '../../copy.ts';

// Message extraction: server body error.message, else message, else a generic message.

export function messageFromBody(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const obj = body as { error?: unknown; message?: unknown };
  if (obj.error && typeof obj.error === 'object') {
    const nested = (obj.error as { message?: unknown; reason?: unknown }).message;
    if (typeof nested === 'string' && nested) return nested;
  }
  if (typeof obj.message === 'string' && obj.message) return obj.message;
  return null;
}

export function getErrorMessage(error: unknown): string {
  if (error && typeof error === 'object' && 'body' in error) {
    const fromBody = messageFromBody((error as { body: unknown }).body);
    if (fromBody) return fromBody;
  }
  const direct = messageFromBody(error);
  if (direct) return direct;
  if (typeof error === 'string' && error) return error;
  return copy.errors.unknown;
}
