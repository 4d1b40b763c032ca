/** First string value of a query parameter (Fastify gives arrays for repeated keys). */
export function qs(query: unknown, key: string): string | undefined {
  const v = (query as Record<string, unknown> | undefined)?.[key];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : undefined;
}
