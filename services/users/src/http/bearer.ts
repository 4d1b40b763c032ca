/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750's token68 characters), or
 * undefined when the header is missing or not a bearer credential. The scheme is matched without
 * regard to case and the whitespace around and between the parts is ignored (RFC 9110), so
 * `Bearer  t`, `bearer\tt` and `BEARER t` are the one token `t`: whatever counts a token (the
 * console's rate limit) counts it once, whatever its spelling.
 */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^\s*bearer\s+([A-Za-z0-9._~+/=-]{1,8192})\s*$/i.exec(authorization ?? '')?.[1];
}
