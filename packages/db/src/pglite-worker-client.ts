import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * What the Kysely dialect and LISTEN need from the embedded database: the worker client below, or
 * (it has the same shape) an in-process PGlite.
 */
export interface PGliteClient {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  /** Calls `onNotice` for each NOTIFY on `channel`; resolves to the function that stops it. */
  listen(channel: string, onNotice: (payload: string) => void): Promise<() => Promise<void>>;
  /** The worker thread's memory (for /metrics). */
  memory(): Promise<WorkerMemory>;
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Where the worker's database comes from (one of them, or none: an empty database in memory). */
export interface WorkerInit {
  dataDir?: string | undefined;
  /** A dump of an initialised data directory (moved to the worker, not copied). */
  template?: ArrayBuffer | undefined;
  /** PGlite's compiled WebAssembly and file-system bundle, shared by every worker of the process. */
  assets?: PGliteAssets | undefined;
}

export interface PGliteAssets {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule: WebAssembly.Module;
  fsBundle: Blob;
}

let assets: Promise<PGliteAssets> | undefined;

/**
 * PGlite's `dist/` folder. Resolved through `require.resolve` rather than `import.meta.resolve`,
 * which Vite's module runner (Vitest's global set-up) does not provide.
 */
export function pgliteDist(): URL {
  return new URL('.', pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')));
}

/**
 * PGlite's WebAssembly, compiled once per process (compilation is off the main thread, and a compiled
 * module is shared with workers rather than copied): without it each worker would compile its own.
 */
export function pgliteAssets(): Promise<PGliteAssets> {
  assets ??= (async () => {
    const dist = pgliteDist();
    const [pglite, initdb, fsBundle] = await Promise.all([
      readFile(new URL('pglite.wasm', dist)),
      readFile(new URL('initdb.wasm', dist)),
      readFile(new URL('pglite.data', dist)),
    ]);
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all([
      WebAssembly.compile(pglite),
      WebAssembly.compile(initdb),
    ]);
    return { pgliteWasmModule, initdbWasmModule, fsBundle: new Blob([fsBundle]) };
  })();
  assets.catch(() => (assets = undefined));
  return assets;
}

export interface SerializedError {
  message: string;
  name: string;
  /** PostgreSQL's fields: code, constraint, detail, table, column, schema, severity… */
  fields: Record<string, string | number>;
}

export type ToWorker =
  | { t: 'query'; id: number; sql: string; params: unknown[] }
  | { t: 'listen'; id: number; channel: string }
  | { t: 'unlisten'; id: number; listener: number }
  | { t: 'memory'; id: number }
  | { t: 'close'; id: number };

/**
 * The PGlite worker thread's own memory: its V8 isolate (`process.memoryUsage()` read on the
 * thread, less `rss`, which is the whole process's) and PostgreSQL's WebAssembly memory, which
 * never shrinks. All of it is inside the process's RSS.
 */
export interface WorkerMemory {
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  wasm: number;
}

export type FromWorker =
  | { t: 'ready' }
  | { t: 'init-error'; error: SerializedError }
  | { t: 'result'; id: number; rows: unknown[]; affectedRows?: number | undefined }
  | { t: 'error'; id: number; error: SerializedError }
  | { t: 'notice'; listener: number; payload: string };

const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
/** Node runs erasable TypeScript (all the worker's entry uses) itself from 22.18 and 23.6 on. */
const stripsTypes =
  (major > 23 || (major === 23 && minor >= 6) || (major === 22 && minor >= 18)) &&
  !process.execArgv.includes('--no-experimental-strip-types');

/**
 * Flags a Worker refuses in its `execArgv` (ERR_WORKER_INVALID_EXEC_ARGV): V8's heap sizing, which
 * sizes the process's main isolate only (a worker would take `resourceLimits`), and
 * `--disable-proto`, which holds for every isolate of the process, workers included, already.
 */
const PER_PROCESS_FLAG =
  /^--(max|min)-(semi|old)-space-size(=|$)|^--max-heap-size(=|$)|^--initial-(old-space|heap)-size(=|$)|^--disable-proto(=|$)/;

/**
 * The worker's flags: the parent's, less `--input-type` (for `--eval` input only), the per-process
 * flags (`--max-semi-space-size`…, `--disable-proto`: refused by workers) and, when Node strips types itself, less the
 * preloads and loaders (`--import tsx`), which would add their own start-up to every worker's.
 */
export function workerExecArgv(parent: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < parent.length; i++) {
    const a = parent[i]!;
    if (a.startsWith('--input-type')) continue;
    if (PER_PROCESS_FLAG.test(a)) {
      if (!a.includes('=')) i++; // and its value
      continue;
    }
    if (stripsTypes && /^(--import|--require|-r|--loader|--experimental-loader)$/.test(a)) {
      i++; // and its value
      continue;
    }
    if (stripsTypes && /^--(import|require|loader|experimental-loader)=/.test(a)) continue;
    out.push(a);
  }
  return out;
}

interface Pending {
  resolve(m: { rows: unknown[]; affectedRows?: number | undefined }): void;
  reject(err: unknown): void;
}

function toError(e: SerializedError): Error {
  const err = new Error(e.message);
  err.name = e.name;
  return Object.assign(err, e.fields);
}

/**
 * Starts PGlite in a worker thread and resolves once it is ready. Queries and their results cross
 * the thread boundary as structured clones (Date, Uint8Array, plain objects, bigint survive; the
 * values are parsed in the worker by PGlite, as before). The worker keeps the process alive only
 * while a request is outstanding, and a worker that dies fails every outstanding request.
 */
export function startPGliteWorker(
  init: WorkerInit,
  /** The worker's entry point (tests substitute one that dies). */
  // Beside this file: pglite-worker.ts, or compiled (dist/), pglite-worker.js.
  entry: URL = import.meta.url.endsWith('.ts')
    ? new URL('./pglite-worker.ts', import.meta.url)
    : new URL('./pglite-worker.js', import.meta.url),
): Promise<PGliteClient> {
  const worker = new Worker(entry, {
    execArgv: workerExecArgv(process.execArgv),
    workerData: init,
    transferList: init.template ? [init.template] : [],
  });
  const pending = new Map<number, Pending>();
  const listeners = new Map<number, (payload: string) => void>();
  let nextId = 1;
  let closed = false;
  let closing: Promise<void> | undefined;
  let refs = 0;

  const hold = () => {
    if (refs++ === 0) worker.ref();
  };
  const letGo = () => {
    if (--refs === 0) worker.unref();
  };

  const failAll = (err: Error) => {
    closed = true;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    listeners.clear();
  };

  const request = (m: ToWorker): Promise<{ rows: unknown[]; affectedRows?: number | undefined }> => {
    if (closed) return Promise.reject(new Error('PGlite is closed'));
    return new Promise((resolve, reject) => {
      try {
        worker.postMessage(m);
      } catch (err) {
        // A parameter that cannot be cloned (a function, a class with private state…).
        reject(err);
        return;
      }
      hold();
      pending.set(m.id, {
        resolve: (r) => {
          letGo();
          resolve(r);
        },
        reject: (e) => {
          letGo();
          reject(e);
        },
      });
    });
  };

  const client: PGliteClient = {
    get closed() {
      return closed;
    },
    async query<R>(sql: string, params: unknown[] = []) {
      const r = await request({ t: 'query', id: nextId++, sql, params });
      return r as { rows: R[]; affectedRows?: number };
    },
    async memory() {
      const r = await request({ t: 'memory', id: nextId++ });
      return r.rows[0] as WorkerMemory;
    },
    async listen(channel, onNotice) {
      const id = nextId++;
      listeners.set(id, onNotice);
      try {
        await request({ t: 'listen', id, channel });
      } catch (err) {
        listeners.delete(id);
        throw err;
      }
      return async () => {
        if (!listeners.delete(id) || closed) return;
        await request({ t: 'unlisten', id: nextId++, listener: id });
      };
    },
    close() {
      closing ??= (async () => {
        if (!closed) {
          try {
            await request({ t: 'close', id: nextId++ });
          } finally {
            closed = true;
          }
        }
        await worker.terminate();
      })();
      return closing;
    },
  };

  return new Promise<PGliteClient>((resolveStart, rejectStart) => {
    let started = false;
    worker.on('message', (m: FromWorker) => {
      switch (m.t) {
        case 'ready':
          started = true;
          worker.unref();
          resolveStart(client);
          return;
        case 'init-error':
          rejectStart(toError(m.error));
          return;
        case 'notice':
          listeners.get(m.listener)?.(m.payload);
          return;
        case 'result': {
          const p = pending.get(m.id);
          pending.delete(m.id);
          p?.resolve(m);
          return;
        }
        case 'error': {
          const p = pending.get(m.id);
          pending.delete(m.id);
          p?.reject(toError(m.error));
          return;
        }
      }
    });
    worker.on('error', (err) => {
      failAll(new Error(`PGlite worker failed: ${err.message}`, { cause: err }));
      if (!started) rejectStart(err);
    });
    worker.on('exit', (code) => {
      failAll(new Error(`PGlite worker exited (code ${code})`));
      if (!started) rejectStart(new Error(`PGlite worker exited (code ${code}) before it was ready`));
    });
  });
}
