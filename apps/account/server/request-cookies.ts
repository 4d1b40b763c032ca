import type { IncomingMessage } from 'node:http';

/** A request's cookies by name (the first of a name wins), their values as sent (still URI-encoded). */
export function requestCookies(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    const name = (at < 0 ? part : part.slice(0, at)).trim();
    if (name && !cookies.has(name)) cookies.set(name, at < 0 ? '' : part.slice(at + 1).trim());
  }
  return cookies;
}
