import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REQUEST_ID_HEADER } from '@acme/service-kit/request-id';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '@acme/test-kit/otlp-receiver';
import { DEMO_PASSWORD } from '@acme/users';
import { launchBrowser } from '../../../e2e/browser.ts';
import { signInWithPassword } from '../../../e2e/journeys.ts';
import { startScaledSystem, type ScaledSystem } from '../../../scripts/cluster-system.ts';
import { freePorts } from './ports.ts';

/**
 * Tracing across the processes of `npm run start:cluster` (each service its own process, on one
 * PostgreSQL): with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a receiver in this test, one password
 * sign-in in Chromium, through the account app, becomes one trace holding spans of the identity
 * service, the authorization server and the user service (the app's calls carry `traceparent`, each
 * service passes it on), and no span anywhere carries a secret the test knows.
 *
 * PostgreSQL only (the `TEST_DB=postgres` stage), like the other multi-process tests.
 */
describe('OpenTelemetry tracing across the cluster', () => {
  let receiver: OtlpReceiver;
  let system: ScaledSystem;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  const EMAIL = 'ada@acme.test';

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    system = await startScaledSystem({
      ports: await freePorts(),
      instances: 1,
      extraEnv: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // http/protobuf, the default, from every process; the receiver decodes it.
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
    });
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
    await system?.close();
    await receiver?.close();
  }, 60_000);

  it('makes one sign-in one trace across identity, the authorization server and the user service, with no secret in any span', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const secrets = new Set<string>([DEMO_PASSWORD, system.adminKey]);
    const traceparents = new Map<string, string>();
    const requestIds: string[] = [];
    const services = [system.urls.identityPublic, system.urls.oauth2Public, system.urls.usersPublic];
    // The sign-in starts with the app's authorize redirect (the session check before it is a call of
    // its own) and ends with the code exchange.
    let signingIn = false;
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (req.url().startsWith(`${system.urls.oauth2Public}/oauth2/auth`)) signingIn = true;
      // The authorization code, on its way to the callback page.
      const code = url.searchParams.get('code');
      if (code) secrets.add(code);
      const header = req.headers().traceparent;
      if (signingIn && header && services.some((s) => req.url().startsWith(s))) {
        traceparents.set(req.url(), header);
      }
      if (req.url() === `${system.urls.oauth2Public}/oauth2/token`) signingIn = false;
    });
    page.on('response', (res) => {
      const id = res.headers()[REQUEST_ID_HEADER];
      if (id && services.some((s) => res.url().startsWith(s))) requestIds.push(id);
    });

    await signInWithPassword(page, system.urls, { email: EMAIL, password: DEMO_PASSWORD });

    // The session cookie and the tokens the app holds.
    for (const cookie of await context.cookies()) {
      if (cookie.name === 'oauth2_token') {
        const token = JSON.parse(decodeURIComponent(cookie.value)) as {
          accessToken: string;
          refreshToken: string;
        };
        secrets.add(token.accessToken);
        if (token.refreshToken) secrets.add(token.refreshToken);
      } else if (cookie.value.length >= 16) secrets.add(cookie.value);
    }
    await context.close();

    // The app's calls to the services carried one trace id; the request ids stay.
    const traceIds = new Set([...traceparents.values()].map((t) => t.split('-')[1]));
    expect(traceparents.size).toBeGreaterThan(2);
    expect(traceIds.size, JSON.stringify([...traceparents], null, 1)).toBe(1);
    const [traceId] = traceIds;
    expect(requestIds.length).toBeGreaterThan(0);

    const inTrace = (s: ReceivedSpan) => s.traceId === traceId;
    const trace = () => receiver.spans.filter(inTrace);
    // The password checked, the code exchanged, and a service calling another, all in this trace.
    const signIn = {
      password: (s: ReceivedSpan) =>
        s.service === 'identity' && s.attributes['http.route'] === '/self-service/login',
      exchange: (s: ReceivedSpan) => s.service === 'oauth2' && s.attributes['url.path'] === '/oauth2/token',
      call: (s: ReceivedSpan) => s.service === 'identity' && s.attributes['url.full'] !== undefined,
      users: (s: ReceivedSpan) => s.service === 'users',
    };
    const found = () =>
      Object.entries(signIn)
        .filter(([, is]) => trace().some(is))
        .map(([name]) => name);
    await expect.poll(found, { timeout: 30_000, interval: 250 }).toEqual(Object.keys(signIn));
    // Every span of this trace the processes had buffered is in: its count stays put for a second.
    // (Only this trace's: the services' background polls, such as the security-event relay, make
    // traces of their own every second or so.)
    let count = -1;
    await expect
      .poll(
        async () => {
          const before = count;
          count = trace().length;
          return before === count;
        },
        { timeout: 30_000, interval: 1_000 },
      )
      .toBe(true);
    // Each statement a request ran is a span of that request's, in this trace (its text with
    // placeholders only): one span per statement, none for the pool's checkouts or connections.
    const statements = trace().filter((s) => s.attributes['db.system.name'] === 'postgresql');
    const ids = new Map(trace().map((s) => [s.spanId, s]));
    expect(statements.length).toBeGreaterThan(0);
    // The code exchange (oidc-provider's Koa app reads its body through promises) ran its statements
    // as children of its own span; every call a service made is a child of the request it served.
    const exchange = trace().find(signIn.exchange)!;
    expect(statements.some((s) => s.parentSpanId === exchange.spanId)).toBe(true);
    const calls = trace().filter((s) => s.attributes['url.full'] !== undefined);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(ids.get(call.parentSpanId)?.service, call.name).toBe(call.service);
    for (const s of statements) {
      expect(s.name).toBe(s.attributes['db.operation.name']);
      expect(ids.get(s.parentSpanId)?.service, s.name).toBe(s.service);
    }
    expect(statements.some((s) => /\$1\b/.test(String(s.attributes['db.query.text'])))).toBe(true);
    expect(receiver.spans.filter((s) => /^pg[.-]/.test(s.name) || s.name.startsWith('middleware'))).toEqual(
      [],
    );
    // The account app server traces its requests as well.
    expect(receiver.spans.some((s) => s.service === 'account')).toBe(true);

    // No attribute of any span, in this trace or another, holds a secret the test knows.
    expect(secrets.size).toBeGreaterThan(4);
    const leaks = receiver.spans.flatMap((s) =>
      Object.entries(s.attributes)
        .filter(([, v]) => [...secrets].some((secret) => JSON.stringify(v).includes(secret)))
        .map(([k, v]) => `${s.service} ${s.name} ${k}=${JSON.stringify(v)}`),
    );
    expect(leaks).toEqual([]);
  }, 180_000);
});
