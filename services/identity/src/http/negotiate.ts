/**
 * Kratos's `x.IsJSONRequest`: JSON when `Accept` negotiates to application/json over text/html,
 * or when the body is JSON. Negotiation follows golang/gddo `NegotiateContentType`, which Kratos
 * uses: the highest q wins, at equal q the more specific range wins, and otherwise the earlier offer.
 */
export function isJsonRequest(headers: {
  accept?: string | undefined;
  'content-type'?: string | undefined;
}): boolean {
  const ct = (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (ct === 'application/json') return true;
  return (
    negotiate(headers.accept ?? '', ['text/html', 'application/json'], 'text/html') === 'application/json'
  );
}

function negotiate(accept: string, offers: string[], defaultOffer: string): string {
  const specs = accept
    .split(',')
    .map((part) => {
      const [value, ...params] = part.trim().toLowerCase().split(';');
      let q = 1;
      for (const p of params) {
        const [k, v] = p.split('=').map((s) => s.trim());
        if (k === 'q') q = Number.isFinite(Number(v)) ? Number(v) : 0;
      }
      return { value: (value ?? '').trim(), q };
    })
    .filter((s) => s.value);
  let best = defaultOffer;
  let bestQ = -1;
  let bestWild = 3;
  for (const offer of offers) {
    for (const spec of specs) {
      if (spec.q === 0 || spec.q < bestQ) continue;
      if (spec.value === '*/*') {
        if (spec.q > bestQ || bestWild > 2) [bestQ, bestWild, best] = [spec.q, 2, offer];
      } else if (spec.value.endsWith('/*')) {
        if (offer.startsWith(spec.value.slice(0, -1)) && (spec.q > bestQ || bestWild > 1)) {
          [bestQ, bestWild, best] = [spec.q, 1, offer];
        }
      } else if (spec.value === offer && (spec.q > bestQ || bestWild > 0)) {
        [bestQ, bestWild, best] = [spec.q, 0, offer];
      }
    }
  }
  return best;
}
