import { createServer } from 'node:http';
import { freePort } from './free-port.ts';

/** A JSON answer the server gives once it stops dropping connections. */
export interface CannedAnswer {
  status: number;
  body: string;
}

/** A running {@link startDroppingServer}: its base URL, how many requests reached it, and its stop. */
export interface DroppingServer {
  url: string;
  calls: () => number;
  close: () => Promise<void>;
}

/**
 * An HTTP server on loopback whose first `drop` requests lose their connection unanswered (as a
 * kept-alive connection closed by a rolling restart does); every later one gets `answer` as JSON.
 */
export async function startDroppingServer(drop: number, answer: CannedAnswer): Promise<DroppingServer> {
  let calls = 0;
  const server = createServer((req, res) => {
    calls++;
    if (calls <= drop) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.body);
  });
  const port = await freePort();
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
