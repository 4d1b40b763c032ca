// Load child: refresh-token grants at `tokenUrl` for `durationSec`, one chain per refresh token
// given (each chain sequential, as rotation requires: every answer's refresh token is the next
// request's). Prints the latencies of the grants that succeeded, the count of those that did not,
// and each chain's latest token, so that the next round carries on the chains.
import { readInput } from './child.ts';

const input = await readInput<{
  tokenUrl: string;
  clientId: string;
  tokens: string[];
  durationSec: number;
}>();
const latencies: number[] = [];
let failures = 0;
const started = performance.now();
const deadline = started + input.durationSec * 1000;
const tokens = await Promise.all(
  input.tokens.map(async (first) => {
    let token = first;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const res = await fetch(input.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: input.clientId,
        }),
      }).catch(() => null);
      const text = res ? await res.text().catch(() => '') : '';
      const body = res?.ok ? (JSON.parse(text) as { refresh_token?: string }) : null;
      if (!body?.refresh_token) {
        // Said on stderr (the bench's log): which answer ended the chain.
        if (failures === 0)
          console.error(`refresh grant failed: ${res ? `${res.status} ${text.slice(0, 200)}` : 'no answer'}`);
        failures++;
        break; // a chain whose grant failed is over (its token may be spent)
      }
      latencies.push(performance.now() - t0);
      token = body.refresh_token;
    }
    return token;
  }),
);
console.log(
  JSON.stringify({ latencies, failures, elapsedSec: (performance.now() - started) / 1000, tokens }),
);
