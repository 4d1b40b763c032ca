// A bare HTTP server for bench/tracing-unit-costs.ts, started with the service kit's tracing preload
// as every part is (or without it): `/plain` reads the body and answers; `/call` also makes one
// `fetch` to UPSTREAM_URL; `/statements` also publishes STATEMENTS finished statements on the
// database package's channel, as its pool does for each statement a request runs. `/cpu` answers
// the process's CPU time so far, in microseconds. Its port goes to the parent over IPC. Each request
// is handled in an async context of its own, as every service's is (its request id): tracing's
// context is measured as the services pay it, on top of one (the first costs more).
import { AsyncLocalStorage } from 'node:async_hooks';
import { channel } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
import { QUERY_CHANNEL } from '@acme/db/query-channel';

const queries = channel(QUERY_CHANNEL);
const statements = Number(process.env.STATEMENTS);
const sql = 'select "id", "subject", "expires_at" from "oauth2_refresh_tokens" where "signature" = $1';

const requests = new AsyncLocalStorage();
let served = 0;

const server = createServer((req, res) => {
  if (req.url === '/cpu') {
    const { user, system } = process.cpuUsage();
    res.end(String(user + system));
    return;
  }
  requests.run({ requestId: String(++served) }, () => void answer(req, res));
});

/** Reads the body as the services' frameworks do (through promises, which keep the request's context). */
async function answer(req, res) {
  let length = 0;
  for await (const chunk of req) length += chunk.length;
  if (req.url === '/call') await (await globalThis.fetch(process.env.UPSTREAM_URL)).arrayBuffer();
  if (req.url === '/statements')
    for (let i = 0; i < statements; i++) queries.publish({ sql, durationMs: 0.2, failed: false });
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ length }));
}
server.listen(0, '127.0.0.1', () => process.send?.(server.address().port));
