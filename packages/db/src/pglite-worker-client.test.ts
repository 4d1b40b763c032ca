import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, sql } from './index.ts';
import { startPGliteWorker, workerExecArgv, type WorkerInit } from './pglite-worker-client.ts';

describe('workerExecArgv', () => {
  it("passes the parent's flags on, less --input-type and (Node strips types itself) the loaders", () => {
    expect(
      workerExecArgv([
        '--import',
        'tsx',
        '--input-type=module',
        '--enable-source-maps',
        '--import=./x.mjs',
        '-r',
        'y',
      ]),
    ).toEqual(['--enable-source-maps']);
  });

  it("leaves out V8's heap sizing flags, which a worker refuses, and keeps export conditions", () => {
    expect(
      workerExecArgv([
        '--max-semi-space-size=1',
        '--max-old-space-size',
        '256',
        '--conditions=compiled',
        '--min-semi-space-size=1',
      ]),
    ).toEqual(['--conditions=compiled']);
  });

  it('leaves out --disable-proto, which a worker refuses and which holds for its isolate already', () => {
    expect(workerExecArgv(['--disable-proto=delete', '--conditions=compiled'])).toEqual([
      '--conditions=compiled',
    ]);
    expect(workerExecArgv(['--disable-proto', 'delete', '--enable-source-maps'])).toEqual([
      '--enable-source-maps',
    ]);
  });
});

// Embedded PGlite in its worker thread: the parts the driver-agnostic suites (test/*.int.test.ts)
// cannot show.
describe.skipIf(process.env.TEST_DATABASE_URL)('PGlite worker', async () => {
  const db = await createTestDb();
  afterAll(() => db.close());

  it('runs the embedded database', () => {
    expect(db.kind).toBe('pglite');
  });

  it("delivers a commit's notice no later than the commit's result", async () => {
    const got: string[] = [];
    const listener = await db.listen('worker_channel', {
      notice: (p) => got.push(p),
      ready: () => undefined,
      lost: () => undefined,
    });
    // Autocommit: the notice is there when the statement's own result is.
    await sql`select pg_notify('worker_channel', 'one')`.execute(db.kysely);
    expect(got).toEqual(['one']);
    await db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_notify('worker_channel', 'two')`.execute(trx);
      expect(got).toEqual(['one']);
    });
    expect(got).toEqual(['one', 'two']);
    await listener.close();
    await sql`select pg_notify('worker_channel', 'three')`.execute(db.kysely);
    expect(got).toEqual(['one', 'two']);
  });

  it.each(['exit', 'throw'] as const)('fails outstanding queries when the worker dies (%s)', async (how) => {
    const dying = new URL('../test/fixtures/dying-worker.ts', import.meta.url);
    const client = await startPGliteWorker({ how } as WorkerInit, dying);
    await expect(client.query('select 1')).rejects.toThrow(/PGlite worker (exited|failed)/);
    expect(client.closed).toBe(true);
    await expect(client.query('select 1')).rejects.toThrow('PGlite is closed');
    await client.close();
  });

  // In a child process, as a service would use it: the worker must not keep it alive.
  const exitsOnItsOwn = (closes: boolean) =>
    new Promise<{ code: number | null; ms: number; out: string }>((resolve, reject) => {
      const script = `
        import { createTestDb, sql } from ${JSON.stringify(new URL('./index.ts', import.meta.url).href)};
        const db = await createTestDb();
        const r = await sql\`select 41 + 1 as n\`.execute(db.kysely);
        console.log(r.rows[0].n);
        ${closes ? 'await db.close();' : ''}`;
      const t0 = performance.now();
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
      child.once('error', reject);
      child.once('exit', (code) => {
        clearTimeout(kill);
        resolve({ code, ms: performance.now() - t0, out });
      });
    });

  it.each([true, false])('lets the process exit (closed: %s)', async (closes) => {
    const { code, out } = await exitsOnItsOwn(closes);
    expect(out.trim()).toBe('42');
    expect(code).toBe(0); // not killed by the 20 s timer
  });
});
