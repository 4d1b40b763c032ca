// What tracing costs per unit of work, the terms of the sum that bench/tracing-cost.ts measures
// whole: the CPU one traced incoming request, one traced outgoing call (`fetch`) and one statement
// span add, with the service kit's own tracing set-up (its preload, instrumentations, sampler
// always_on, redaction and OTLP/protobuf export to a sink), against the same server untraced. The
// server is bench/tracing-unit-server.mjs, a bare Node HTTP server on the server core; autocannon
// loads it from the load core. Each figure is the median over rounds, in microseconds of CPU.
import { fork } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Result } from 'autocannon';
import { COMPILED_CONDITION } from '@acme/cluster/processes';
import { runLoadChild } from './load/child.ts';
import { medianOf } from './median.ts';

const STATEMENTS = 8;
const ROUTES = ['plain', 'call', 'statements'] as const;
type Route = (typeof ROUTES)[number];
const root = join(import.meta.dirname, '..');

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** CPU microseconds the server spent per request on `route`, traced or not. */
async function cpuPerRequest(
  route: Route,
  traced: boolean,
  env: Record<string, string>,
  durationSec: number,
) {
  const child = fork(join(import.meta.dirname, 'tracing-unit-server.mjs'), {
    cwd: root,
    execArgv: [
      COMPILED_CONDITION,
      ...(traced ? ['--import', join(root, 'packages/service-kit/tracing.mjs')] : []),
    ],
    env: {
      PATH: process.env.PATH ?? '',
      STATEMENTS: String(STATEMENTS),
      ...(traced ? env : {}),
      UPSTREAM_URL: env.UPSTREAM_URL!,
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (m) => resolve(Number(m)));
      child.once('exit', (code) => reject(new Error(`tracing unit server exited ${code}`)));
    });
    const url = `http://127.0.0.1:${port}/${route}`;
    const load = (seconds: number) =>
      runLoadChild<Result>('autocannon', {
        url,
        method: 'POST',
        body: 'grant_type=refresh_token',
        connections: 8,
        duration: seconds,
      });
    const cpu = async () => Number(await (await fetch(`http://127.0.0.1:${port}/cpu`)).text());
    await load(1);
    const before = await cpu();
    const result = await load(durationSec);
    const spent = (await cpu()) - before;
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`tracing unit server: ${result.non2xx + result.errors} failed requests`);
    return spent / result.requests.total;
  } finally {
    child.kill();
  }
}

export async function benchTracingUnitCosts(options: {
  rounds: number;
  durationSec: number;
  sinkUrl: string;
}) {
  const upstream = createServer((_req, res) => res.end('{}'));
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: options.sinkUrl,
    OTEL_TRACES_SAMPLER: 'always_on',
    UPSTREAM_URL: await listen(upstream),
  };
  const samples = {
    on: { plain: [], call: [], statements: [] },
    off: { plain: [], call: [], statements: [] },
  } as Record<'on' | 'off', Record<Route, number[]>>;
  try {
    for (let round = 0; round < options.rounds; round++)
      for (const route of ROUTES)
        for (const traced of round % 2 ? [false, true] : [true, false])
          samples[traced ? 'on' : 'off'][route].push(
            await cpuPerRequest(route, traced, env, options.durationSec),
          );
  } finally {
    upstream.close();
  }
  const m = (side: 'on' | 'off', route: Route) => medianOf(samples[side][route]) as number;
  const added = (route: Route) => m('on', route) - m('off', route);
  const round1 = (n: number) => Math.round(n * 10) / 10;
  return {
    microsecondsOfCpu: {
      untracedRequest: round1(m('off', 'plain')),
      tracedIncomingRequest: round1(added('plain')),
      tracedOutgoingCall: round1(added('call') - added('plain')),
      statementSpan: round1((added('statements') - added('plain')) / STATEMENTS),
    },
    perRoute: Object.fromEntries(
      ROUTES.map((r) => [r, { on: round1(m('on', r)), off: round1(m('off', r)) }]),
    ),
    rounds: options.rounds,
  };
}
