import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUERY_CHANNEL } from '@acme/db/query-channel';
import { startOtlpReceiver, type OtlpReceiver } from '@acme/test-kit/otlp-receiver';
import { ConfigError } from './config.ts';
import {
  commandOf,
  defaultServiceName,
  INSTRUMENTATIONS,
  instrumentationsOn,
  RedactingExporter,
  tracingSettings,
} from './tracing.ts';
import { tracingConfigured } from './tracing-gate.ts';

const SECRET = 'S3cr3t-code-that-must-not-leave';
const kit = join(dirname(fileURLToPath(import.meta.url)), '..');

describe("a statement span's name", () => {
  it.each([
    ['select "id" from "members" where "id" = $1', 'SELECT'],
    ['  INSERT into members values ($1)', 'INSERT'],
    ['\n\twith recent as (select 1) select * from recent', 'WITH'],
    ['Delete from sessions', 'DELETE'],
    ['update members set name = $1', 'UPDATE'],
    ['begin', 'BEGIN'],
    ['commit', 'COMMIT'],
    ['rollback to savepoint a', 'ROLLBACK'],
    // Not one of the common commands, or one only as the start of a longer word.
    ['selected_at', 'SELECTED_AT'],
    ['vacuum analyze', 'VACUUM'],
    ['listen "acme_events"', 'LISTEN'],
    ['', 'QUERY'],
    ['  ;', 'QUERY'],
  ])('of %j is %s, as the first word upper-cased', (sql, name) => {
    expect(commandOf(sql)).toBe(name);
    // The rule it shortens: the first word, upper-cased.
    expect(name).toBe(/^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY');
  });
});

describe('tracing settings', () => {
  it.each([
    ['no endpoint: off', {}, false],
    ['an endpoint: on', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, true],
    [
      'the traces endpoint alone: on',
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces' },
      true,
    ],
    ['an empty endpoint: off', { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' }, false],
    [
      'OTEL_SDK_DISABLED=true: off',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' },
      false,
    ],
  ])('%s', (_name, env, on) => {
    expect(tracingConfigured(env)).toBe(on);
  });

  it('defaults to http/protobuf and the parent-based always-on sampler', () => {
    const s = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' });
    expect(s.OTEL_EXPORTER_OTLP_PROTOCOL).toBe('http/protobuf');
    expect(s.OTEL_TRACES_SAMPLER).toBe('parentbased_always_on');
  });

  it.each([
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_TRACES_SAMPLER_ARG', '2'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'not a url'],
  ])('refuses a malformed %s, naming it without its value', (name, value) => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', [name]: value };
    expect(() => tracingSettings(env)).toThrow(ConfigError);
    expect(() => tracingSettings(env)).toThrow(name);
    expect(() => tracingSettings(env)).not.toThrow(value);
  });

  it.each([
    ['neither set: all', {}, ['http', 'undici', 'pg', 'fastify', 'koa']],
    ['disabled pg', { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' }, ['http', 'undici', 'fastify', 'koa']],
    ['enabled http and pg', { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http, pg' }, ['http', 'pg']],
    [
      'a name in both lists: off',
      { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'http,pg', OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' },
      ['http'],
    ],
    [
      "names of the SDK's other packages and empty entries: no change",
      { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'fs,,dns, ' },
      ['http', 'undici', 'pg', 'fastify', 'koa'],
    ],
    ['enabled only unknown names: none', { OTEL_NODE_ENABLED_INSTRUMENTATIONS: 'express' }, []],
    ['an empty enabled list: unset, all', { OTEL_NODE_ENABLED_INSTRUMENTATIONS: ' ' }, INSTRUMENTATIONS],
  ])('switches instrumentations on and off as the SDK does: %s', (_name, env, on) => {
    const settings = tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...env });
    expect([...instrumentationsOn(settings)]).toEqual(on);
  });

  it.each([
    ['/app/services/identity/dist/main.js', 'identity'],
    ['/app/services/oauth2/src/main.ts', 'oauth2'],
    ['/app/services/users/dist/main.js', 'users'],
    ['/app/services/agent/dist/main.js', 'agent'],
    ['/app/apps/account/server/dist/server/main.js', 'account'],
    ['/app/dev/dist/main.js', 'stand-ins'],
    ['/app/scripts/dist/start.js', 'system'],
  ])('names the service of %s %s', (entry, name) => {
    expect(defaultServiceName(entry)).toBe(name);
  });
});

describe('RedactingExporter (the one way out for spans)', () => {
  it('exports spans with URLs cut at the query and no credential or secret attribute', async () => {
    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new RedactingExporter(memory))],
    });
    const span = provider.getTracer('t').startSpan('GET /callback', {
      attributes: {
        'url.full': `http://localhost:4000/account/callback?code=${SECRET}`,
        'url.query': `code=${SECRET}`,
        'http.request.header.authorization': `Bearer ${SECRET}`,
        'http.request.header.cookie': `ory_kratos_session=${SECRET}`,
        'app.refresh_token': SECRET,
        'http.response.status_code': 200,
      },
    });
    span.addEvent('exception', { 'exception.message': 'boom', 'oauth.code': SECRET });
    span.end();
    await provider.forceFlush();
    const [exported] = memory.getFinishedSpans();
    expect(exported!.attributes).toEqual({
      'url.full': 'http://localhost:4000/account/callback',
      'http.response.status_code': 200,
    });
    expect(exported!.events[0]!.attributes).toEqual({ 'exception.message': 'boom' });
    expect(JSON.stringify(exported!.attributes) + JSON.stringify(exported!.events)).not.toContain(SECRET);
    await provider.shutdown();
  });
});

/** Runs `script` under the preload (from the TypeScript sources) with `env`; resolves its stdout. */
function runWithPreload(script: string, env: Record<string, string>): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tracing-'));
  const file = join(dir, 'script.mjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', join(kit, 'tracing.mjs'), file], {
    cwd: kit,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`)))),
  );
}

// How many modules of the OpenTelemetry SDK the process has loaded (they are CommonJS).
const COUNT_SDK = `
import { createRequire } from 'node:module';
const cache = createRequire(import.meta.url).cache;
console.log(Object.keys(cache).filter((k) => k.includes('@opentelemetry')).length);
`;

// A server and a call to it with a secret in the query and in the Authorization header.
const ROUND_TRIP = `
import { createServer } from 'node:http';
const server = createServer((req, res) => res.end('ok'));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const { port } = server.address();
await (await fetch('http://127.0.0.1:' + port + '/callback?code=${SECRET}', {
  headers: { authorization: 'Bearer ${SECRET}', cookie: 'session=${SECRET}' },
})).text();
server.close();
`;

// A Fastify route with a parameter, called once: its server span is named after the route.
const FASTIFY_ROUTE = `
const { default: Fastify } = await import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('fastify')).href)});
const app = Fastify();
app.get('/members/:id', async () => ({ ok: true }));
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address();
await (await fetch('http://127.0.0.1:' + port + '/members/42')).text();
await app.close();
`;

// A Koa app (as oidc-provider is) with two middleware layers, called once: prints whether Koa runs
// the functions it was given (an instrumentation wraps each layer in one of its own).
const KOA_APP = `
const { createRequire } = await import('node:module');
const Koa = createRequire(${JSON.stringify(`${kit}/`)})('koa');
const { createServer } = await import('node:http');
const app = new Koa();
const outer = async (ctx, next) => { await next(); };
const inner = (ctx) => { ctx.body = 'ok'; };
app.use(outer).use(inner);
const server = createServer(app.callback());
await new Promise((r) => server.listen(0, '127.0.0.1', r));
await (await fetch('http://127.0.0.1:' + server.address().port + '/token')).text();
server.close();
console.log(JSON.stringify(app.middleware[0] === outer && app.middleware[1] === inner));
`;

// A request whose handler ran a statement (published as the database package does when one ends),
// and a statement outside any request (as a timer's).
const STATEMENTS = `
import { channel } from 'node:diagnostics_channel';
import { createServer } from 'node:http';
const statements = channel(${JSON.stringify(QUERY_CHANNEL)});
const ran = (sql) => statements.publish({ sql, durationMs: 3, failed: false });
ran('delete from outbox where sent_at < $1');
const server = createServer((req, res) => {
  ran('select id from members where id = $1');
  res.end('ok');
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
await (await fetch('http://127.0.0.1:' + server.address().port + '/members')).text();
server.close();
`;

// A Fastify route that reads a JSON body, runs a statement and calls another server with Node's
// http client (as the SSO calls do), and a route that fails; then a request whose connection closes
// before any answer (sent without traceparent, with a tracestate alone).
const REQUEST_TREE = `
import { channel } from 'node:diagnostics_channel';
import { createServer, request } from 'node:http';
import { connect } from 'node:net';
const { default: Fastify } = await import(${JSON.stringify(pathToFileURL(createRequire(import.meta.url).resolve('fastify')).href)});
const statements = channel(${JSON.stringify(QUERY_CHANNEL)});
const downstream = createServer((req, res) => res.end('{}'));
await new Promise((r) => downstream.listen(0, '127.0.0.1', r));
const app = Fastify();
app.post('/orders/:id', async (req) => {
  statements.publish({ sql: 'insert into orders (id) values ($1)', durationMs: 1, failed: false });
  await new Promise((resolve, reject) =>
    request({ host: '127.0.0.1', port: downstream.address().port, path: '/stock?sku=1', headers: { accept: 'application/json' } }, (res) => {
      res.resume();
      res.on('end', resolve);
    }).on('error', reject).end(),
  );
  return { ok: req.body.n };
});
app.get('/broken', async () => { throw new Error('boom'); });
app.get('/slow', () => new Promise(() => {}));
await app.listen({ host: '127.0.0.1', port: 0 });
const base = 'http://127.0.0.1:' + app.server.address().port;
// The body comes 50 ms after the headers, so that it is read in a later turn than the request's.
await new Promise((resolve, reject) => {
  const post = request(base + '/orders/7', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 7 } }, (res) => {
    res.resume();
    res.on('end', resolve);
  });
  post.on('error', reject);
  post.flushHeaders();
  setTimeout(() => post.end('{"n":1}'), 50);
});
await (await fetch(base + '/broken')).text();
const socket = connect(app.server.address().port, '127.0.0.1', () => socket.write('GET /slow HTTP/1.1\\r\\nHost: x\\r\\ntracestate: vendor=1\\r\\n\\r\\n'));
await new Promise((r) => setTimeout(r, 200));
socket.destroy();
await new Promise((r) => setTimeout(r, 200));
await app.close();
downstream.close();
`;

describe('the preload', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver.close());

  /** Runs `script` under the preload exporting to the receiver as `service`; waits for `atLeast` spans. */
  async function traced(script: string, service: string, atLeast: number, env: Record<string, string> = {}) {
    receiver.spans.length = 0;
    const out = await runWithPreload(script, {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: service,
      ...env,
    });
    // The process exits once its last batch is out (the SDK flushes at exit).
    await expect.poll(() => receiver.spans.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(atLeast);
    return out;
  }

  it('without an endpoint loads nothing of the SDK (tracing off costs nothing)', async () => {
    expect(Number(await runWithPreload(COUNT_SDK, {}))).toBe(0);
    // The measure can fail: with an endpoint the SDK is there.
    const on = await runWithPreload(COUNT_SDK, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(Number(on)).toBeGreaterThan(0);
  }, 60_000);

  it.each(['http/protobuf', 'http/json'])(
    'with an endpoint exports the server and client spans of one trace over %s, without the secret',
    async (protocol) => {
      await traced(ROUND_TRIP, 'preload-test', 2, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      const spans = receiver.spans;
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
      expect(spans.every((s) => s.service === 'preload-test')).toBe(true);
      const server = spans.find((s) => s.attributes['url.path'] === '/callback');
      expect(server, JSON.stringify(spans)).toBeDefined();
      const client = spans.find((s) => String(s.attributes['url.full'] ?? '').endsWith('/callback'));
      expect(client, JSON.stringify(spans)).toBeDefined();
      expect(server!.parentSpanId).toBe(client!.spanId);
      expect(JSON.stringify(spans)).not.toContain(SECRET);
    },
    60_000,
  );

  it("names a Fastify request's server span after its route (http.route), without a span per hook", async () => {
    await traced(FASTIFY_ROUTE, 'fastify-route-test', 2);
    const server = receiver.spans.find((s) => s.attributes['url.path'] === '/members/42');
    expect(server, JSON.stringify(receiver.spans)).toMatchObject({
      name: 'GET /members/:id',
      attributes: { 'http.route': '/members/:id' },
    });
    // The call and the request: no span of Fastify's hooks or handler beside them.
    expect(receiver.spans.map((s) => s.name).sort()).toEqual(['GET', 'GET /members/:id']);
  }, 60_000);

  it("makes each statement of a request a span of that request's, and one outside a request none", async () => {
    await traced(STATEMENTS, 'statements-test', 3);
    const server = receiver.spans.find((s) => s.attributes['url.path'] === '/members');
    const statement = receiver.spans.find((s) => s.name === 'SELECT');
    expect(statement, JSON.stringify(receiver.spans)).toMatchObject({
      traceId: server!.traceId,
      parentSpanId: server!.spanId,
      attributes: {
        'db.system.name': 'postgresql',
        'db.operation.name': 'SELECT',
        'db.query.text': 'select id from members where id = $1',
      },
    });
    // The call, the request and its statement: the timer's statement made no trace.
    expect(receiver.spans.map((s) => s.name).sort()).toEqual(['GET', 'GET', 'SELECT']);
  }, 60_000);

  it('with pg switched off makes no statement span, and still the request and call spans', async () => {
    await traced(STATEMENTS, 'statements-off-test', 2, { OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg' });
    // A moment for any later export: a statement's span would come with it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.spans.map((s) => s.name).sort()).toEqual(['GET', 'GET']);
  }, 60_000);

  it("nests a request's statement and http-client call under its span, carries traceparent on, and marks 5xx and a dropped connection as errors", async () => {
    await traced(REQUEST_TREE, 'request-tree-test', 8);
    const spans = receiver.spans;
    const dump = JSON.stringify(spans);
    const served = (path: string) => spans.find((s) => s.attributes['url.path'] === path);
    const order = served('/orders/7');
    expect(order, dump).toMatchObject({
      name: 'POST /orders/:id',
      status: 0,
      attributes: { 'http.route': '/orders/:id', 'http.response.status_code': 200 },
    });
    // The statement and the call ran after the body was read, in the request's context.
    expect(
      spans.find((s) => s.name === 'INSERT'),
      dump,
    ).toMatchObject({ parentSpanId: order!.spanId });
    const call = spans.find((s) => String(s.attributes['url.full']).endsWith('/stock'));
    expect(call, dump).toMatchObject({ parentSpanId: order!.spanId, traceId: order!.traceId });
    expect(call!.attributes['http.response.status_code']).toBe(200);
    // The downstream server continued the trace from the call's traceparent.
    expect(served('/stock'), dump).toMatchObject({ parentSpanId: call!.spanId, traceId: order!.traceId });
    expect(served('/broken'), dump).toMatchObject({
      status: 2,
      attributes: { 'http.response.status_code': 500 },
    });
    expect(served('/slow'), dump).toMatchObject({ status: 2 });
    // No traceparent: a trace of its own, whatever tracestate says.
    expect(served('/slow')!.parentSpanId, dump).toBeFalsy();
    expect(served('/slow')!.traceId).not.toBe(order!.traceId);
    expect(served('/slow')!.attributes['http.response.status_code']).toBeUndefined();
  }, 60_000);

  it("leaves Koa's middleware layers unwrapped: a Koa request is its server span, with no span or wrapper per layer", async () => {
    const unwrapped = await traced(KOA_APP, 'koa-test', 2);
    expect(JSON.parse(unwrapped)).toBe(true);
    // The call and the request it made (traced, as every Node server's request is) and nothing else.
    const server = receiver.spans.find((s) => s.attributes['url.path'] === '/token');
    expect(server, JSON.stringify(receiver.spans)).toBeDefined();
    expect(receiver.spans.map((s) => s.name).sort()).toEqual(['GET', 'GET']);
  }, 60_000);
});
