import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_TEST_TYPE } from '@acme/users-contract/webhooks';
import { Webhook } from 'standardwebhooks';

/** One request a test receiver got: its raw body (what the signature covers) and headers. */
export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

/** An answer: a status and, for a redirect, where to. */
type Answer = { status: number; location?: string };

/**
 * A webhook receiver on 127.0.0.1 that records each request and answers as the test says: the
 * `webhook.test` requests sent when an endpoint is saved in `tests` (answered by `answerTest`, 204
 * unless told), every delivery in `received` (answered by `answer`).
 */
export interface Receiver {
  url: string;
  received: Received[];
  tests: Received[];
  answer: (request: Received, index: number) => Answer;
  answerTest: (request: Received) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(
  answer: Receiver['answer'] = () => ({ status: 204 }),
  answerTest: Receiver['answerTest'] = () => ({ status: 204 }),
): Promise<Receiver> {
  const state: Receiver = {
    url: '',
    received: [],
    tests: [],
    answer,
    answerTest,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers };
      const isTest = (JSON.parse(got.body || '{}') as { type?: string }).type === WEBHOOK_TEST_TYPE;
      if (isTest) state.tests.push(got);
      else state.received.push(got);
      const { status, location } = isTest
        ? state.answerTest(got)
        : state.answer(got, state.received.length - 1);
      res.writeHead(status, location ? { location } : {}).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

/** The payload if the `standardwebhooks` library verifies it with `secret`; throws otherwise. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the payload's data, read by the tests
export function verified(secret: string, request: Received): { type: string; timestamp: string; data: any } {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
  );
  return new Webhook(secret).verify(request.body, headers) as ReturnType<typeof verified>;
}
