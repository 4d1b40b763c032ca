import type { Config } from '../config.ts';
import { errors } from '../errors/identity-error.ts';

/**
 * `return_to` allow-list check after WHATWG URL parsing. An entry matches on scheme, host
 * (`*.example.com` allows sub-domains), port and path prefix. Returns the normalised URL or null.
 */
export function checkReturnTo(input: string, allowed: string[]): string | null {
  if (input.length === 0 || input.length > 2048) return null;
  // Backslashes, whitespace and control characters are never legitimate here (`\\evil`, `https:/\evil`, tab tricks).
  if (/[\\\s]/.test(input) || [...input].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
    return null;
  if (!URL.canParse(input)) return null;
  const url = new URL(input);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  // `https:evil` and `https:/evil` parse as https://evil/ for special schemes: insist on the literal `//`.
  if (!input.toLowerCase().startsWith(`${url.protocol}//`)) return null;
  if (url.username !== '' || url.password !== '') return null;
  if (/%(2f|5c)/i.test(url.pathname)) return null;
  for (const entry of allowed) {
    if (matches(url, entry)) return url.href;
  }
  return null;
}

function matches(url: URL, entry: string): boolean {
  const wildcard = entry.includes('://*.');
  const raw = wildcard ? entry.replace('://*.', '://wildcard.') : entry;
  if (!URL.canParse(raw)) return false;
  const a = new URL(raw);
  if (a.protocol !== url.protocol || a.port !== url.port) return false;
  if (wildcard) {
    const suffix = a.hostname.slice('wildcard'.length); // ".example.com"
    if (!url.hostname.endsWith(suffix) || url.hostname.length <= suffix.length) return false;
  } else if (a.hostname !== url.hostname) return false;
  if (a.pathname === '/' || a.pathname === '') return true;
  const prefix = a.pathname.endsWith('/') ? a.pathname : `${a.pathname}/`;
  return url.pathname === a.pathname.replace(/\/$/, '') || url.pathname.startsWith(prefix);
}

/**
 * A request's `return_to` checked against the configured allow-list (and the service's own
 * `/self-service/` URLs): null when absent, the normalised URL when allowed, otherwise the Kratos
 * 400 `self_service_flow_return_to_forbidden`.
 */
export function validReturnTo(config: Config, raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  const ok = checkReturnTo(raw, [...config.allowedReturnUrls, `${config.publicUrl}/self-service/`]);
  if (!ok) throw errors.returnToForbidden(raw);
  return ok;
}
