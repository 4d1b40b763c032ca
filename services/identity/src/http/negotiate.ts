/**
 * Kratos's `x.IsJSONRequest`: JSON when `Accept` negotiates to application/json over text/html
 * (ties go to text/html, so a missing Accept or `*\/*` is a browser), or when the body is JSON.
 */
export function isJsonRequest(headers: {
  accept?: string | undefined;
  'content-type'?: string | undefined;
}): boolean {
  const ct = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (ct === 'application/json') return true;
  return negotiate(headers.accept ?? '', ['text/html', 'application/json']) === 'application/json';
}

/** Picks the offer with the highest q (most specific matching range wins); ties go to the earlier offer. */
export function negotiate(accept: string, offers: string[]): string | undefined {
  if (!accept.trim()) return offers[0];
  const ranges = accept.split(',').flatMap((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    if (!type) return [];
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
    }
    return [{ type: type.trim(), q }];
  });
  let best: string | undefined;
  let bestQ = 0;
  for (const offer of offers) {
    const [ot, os] = offer.split('/');
    let q = -1;
    let spec = -1;
    for (const r of ranges) {
      const [rt, rs] = r.type.split('/');
      const s = r.type === offer ? 2 : rt === ot && rs === '*' ? 1 : r.type === '*/*' ? 0 : -1;
      if (s > spec) {
        spec = s;
        q = r.q;
      }
      void os;
    }
    if (spec >= 0 && q > bestQ) {
      best = offer;
      bestQ = q;
    }
  }
  return best;
}
