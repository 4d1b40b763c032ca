// Worker thread that owns the embedded PGlite database (see pglite-worker-client.ts for the main
// thread's side and the message protocol). PGlite runs PostgreSQL as WebAssembly on the thread that
// calls it, so here it blocks this thread instead of the services' event loop.
//
// This file runs as the worker's entry point: it uses only syntax Node can strip from TypeScript by
// itself (the worker also inherits the parent's `--import tsx`, when there is one).
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { FromWorker, SerializedError, ToWorker, WorkerInit } from './pglite-worker-client.ts';
import { preparedQueries, type Query } from './pglite-prepared.ts';

const port = parentPort;
if (!port) throw new Error('pglite-worker.ts runs as a worker thread');

// PostgreSQL's error fields (as PGlite and node-postgres name them): services read e.g. `code`.
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
  'query',
] as const;

// Everything but the parameters, which may hold secrets and are the caller's own anyway.
function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { message: String(err), name: 'Error', fields: {} };
  const fields: Record<string, string | number> = {};
  for (const key of ERROR_FIELDS) {
    const value = (err as unknown as Record<string, unknown>)[key];
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return { message: err.message, name: err.name, fields };
}

const send = (m: FromWorker) => port.postMessage(m);

const SHARED_BUFFERS = '16MB';
const init = workerData as WorkerInit;
let pglite: PGlite;
let query: Query;
try {
  pglite = new PGlite({
    // PostgreSQL's shared buffers live in the WebAssembly memory, which never shrinks: the default
    // 128 MB took the memory from its initial 128 MB to about 200 MB. 16 MB holds the working set
    // of a development database and keeps the memory at its initial size (idle RSS ~50 MB lower).
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    ...init.assets,
    ...(init.dataDir ? { dataDir: init.dataDir } : {}),
    ...(init.template ? { loadDataDir: new Blob([init.template]) } : {}),
  });
  await pglite.waitReady;
  query = preparedQueries(pglite);
} catch (err) {
  send({ t: 'init-error', error: serializeError(err) });
  process.exit(1);
}

const unlisteners = new Map<number, () => Promise<void>>();

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'query':
      query(m.sql, m.params).then(
        (r) => send({ t: 'result', id: m.id, rows: r.rows, affectedRows: r.affectedRows }),
        (err: unknown) => send({ t: 'error', id: m.id, error: serializeError(err) }),
      );
      return;
    case 'listen':
      // A notice is posted from inside the query that commits it, so it reaches the main thread
      // before that query's result (messages on one port keep their order).
      pglite
        .listen(m.channel, (payload) => send({ t: 'notice', listener: m.id, payload }))
        .then(
          (unlisten) => {
            unlisteners.set(m.id, unlisten);
            send({ t: 'result', id: m.id, rows: [] });
          },
          (err: unknown) => send({ t: 'error', id: m.id, error: serializeError(err) }),
        );
      return;
    case 'unlisten': {
      const unlisten = unlisteners.get(m.listener);
      unlisteners.delete(m.listener);
      (unlisten ? unlisten() : Promise.resolve()).then(
        () => send({ t: 'result', id: m.id, rows: [] }),
        (err: unknown) => send({ t: 'error', id: m.id, error: serializeError(err) }),
      );
      return;
    }
    case 'memory': {
      const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
      // PGlite keeps its Emscripten module private (`mod`); `wasmMemory` is PostgreSQL's memory.
      const mod = (pglite as unknown as { mod?: { wasmMemory?: WebAssembly.Memory } }).mod;
      const wasm = mod?.wasmMemory?.buffer.byteLength ?? 0;
      send({ t: 'result', id: m.id, rows: [{ heapUsed, heapTotal, external, arrayBuffers, wasm }] });
      return;
    }
    case 'close':
      // Closing flushes a data directory to disk; the main thread ends the thread afterwards.
      pglite.close().then(
        () => send({ t: 'result', id: m.id, rows: [] }),
        (err: unknown) => send({ t: 'error', id: m.id, error: serializeError(err) }),
      );
      return;
  }
});

send({ t: 'ready' });
