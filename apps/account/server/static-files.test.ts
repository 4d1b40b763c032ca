import { spawn } from 'node:child_process';
import { request } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, relative } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedApp } from './serve.ts';
import { appDir, serveApp } from './serve.ts';
import { IMMUTABLE, REVALIDATE } from './static-files.ts';

// The real `vite build` (with its precompression plugin) into a temporary directory, served as
// npm start serves it: every file of the build, asked for with br, with gzip and with neither.

let dist: string;
let app: ServedApp;

function viteBuild(outDir: string): Promise<void> {
  const vite = join(appDir, '..', '..', 'node_modules', 'vite', 'bin', 'vite.js');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn', '--mode', 'production'],
      {
        cwd: appDir,
        env: { ...process.env, NODE_ENV: 'production' },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build exited ${code}`))));
  });
}

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A GET whose body is read as sent (fetch would decode it). */
function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(`${app.url}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'account-build-'));
  await viteBuild(dist);
  app = await serveApp({ port: 0, application: 'platform', distDir: dist });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await rm(dist, { recursive: true, force: true });
});

/** The files of the build (what the browser may ask for), not the variants beside them. */
async function builtFiles(): Promise<string[]> {
  const entries = await readdir(dist, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && !/\.(br|gz)$/.test(e.name))
    .map((e) => relative(dist, join(e.parentPath, e.name)).split('\\').join('/'))
    .filter((file) => !file.startsWith('.'));
}

/** The type of the file, whichever encoding carries it. */
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

const ENCODINGS = [
  { ask: 'br', suffix: '.br', decode: brotliDecompressSync },
  { ask: 'gzip', suffix: '.gz', decode: gunzipSync },
  { ask: 'identity', suffix: '', decode: (b: Buffer) => b },
] as const;

describe('the build, precompressed', () => {
  it('writes a .br and a .gz beside every script, stylesheet and page (but the tiniest chunks)', async () => {
    const files = await builtFiles();
    expect(files).toContain('index.html');
    expect(files.some((f) => f.startsWith('assets/') && f.endsWith('.js'))).toBe(true);
    for (const file of files) {
      const size = (await readFile(join(dist, file))).length;
      // Below a few hundred bytes the gzip header can outweigh the gain (then only the file is sent).
      if (size < 512) continue;
      expect(existsSync(join(dist, `${file}.br`)), `${file}.br`).toBe(true);
      expect(existsSync(join(dist, `${file}.gz`)), `${file}.gz`).toBe(true);
    }
  });
});

describe('serving every file of the build', () => {
  it('sends the .br, the .gz or the file by Accept-Encoding, with Vary, a strong ETag and its cache policy; 304 when revalidated', async () => {
    const files = await builtFiles();
    for (const file of files) {
      const original = await readFile(join(dist, file));
      const etags = new Set<string>();
      for (const { ask, suffix, decode } of ENCODINGS) {
        const variant = suffix && existsSync(join(dist, file + suffix)) ? suffix : '';
        const where = `${file} (${ask})`;
        const res = await get(`/account/${file}`, { 'accept-encoding': ask });
        expect(res.status, where).toBe(200);
        expect(res.headers['content-encoding'], where).toBe(variant ? ask : undefined);
        // The exact bytes written at build time, which decode to the file.
        expect(res.body.equals(await readFile(join(dist, file + variant))), where).toBe(true);
        expect((variant ? decode(res.body) : res.body).equals(original), where).toBe(true);
        expect(res.headers['content-type'], where).toBe(TYPES[extname(file)]);
        expect(res.headers.vary, where).toMatch(/accept-encoding/i);
        expect(res.headers['cache-control'], where).toBe(file.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
        expect(res.headers['content-security-policy'], where).toContain("script-src 'self'");
        const etag = res.headers.etag!;
        expect(etag, where).toMatch(/^"[A-Za-z0-9_-]+"$/); // strong: no W/ prefix
        etags.add(`${variant}${etag}`);

        const again = await get(`/account/${file}`, { 'accept-encoding': ask, 'if-none-match': etag });
        expect(again.status, `${where} revalidated`).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
        expect(again.headers.vary).toMatch(/accept-encoding/i);
        expect(again.headers['cache-control']).toBe(res.headers['cache-control']);
        expect(again.headers['content-security-policy']).toContain("script-src 'self'");
      }
      // One validator per representation: a .br's ETag never validates the gzip or plain bytes.
      const distinct = new Set([...etags].map((e) => e.slice(e.indexOf('"'))));
      expect(distinct.size, file).toBe(etags.size);
    }
  });

  it("another representation's ETag does not revalidate this one", async () => {
    const brotli = await get('/account/settings', { 'accept-encoding': 'br' });
    const plain = await get('/account/settings', {
      'accept-encoding': 'identity',
      'if-none-match': brotli.headers.etag!,
    });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
  });

  it('honours q=0: a client refusing br gets gzip', async () => {
    const [script] = (await builtFiles()).filter((f) => f.startsWith('assets/index-') && f.endsWith('.js'));
    const res = await get(`/account/${script}`, { 'accept-encoding': 'br;q=0, gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it('sends the SPA page for app routes compressed and revalidated, and 404s a missing asset', async () => {
    const page = await get('/account/login?login_challenge=x', { 'accept-encoding': 'br, gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBe('br');
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['cache-control']).toBe(REVALIDATE);
    expect(brotliDecompressSync(page.body).toString()).toContain('<div id="root">');
    const again = await get('/research', {
      'accept-encoding': 'br, gzip',
      'if-none-match': page.headers.etag!,
    });
    expect(again.status).toBe(304);

    const missing = await get('/account/assets/index-missing.js', { 'accept-encoding': 'br' });
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it('revalidates the runtime configuration (no-cache, strong ETag, 304)', async () => {
    const res = await get('/account/runtime-config.js');
    expect(res.headers['cache-control']).toBe(REVALIDATE);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.body.toString()).toContain('window.__ACCOUNT_CONFIG__');
    const again = await get('/account/runtime-config.js', { 'if-none-match': res.headers.etag! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('two applications on one build each keep their own headers, and closing one leaves the other serving', async () => {
    const magic = await serveApp({ port: 0, application: 'magic', distDir: dist });
    const fromMagic = await fetch(`${magic.url}/account/settings`);
    const fromPlatform = await get('/account/settings', { 'accept-encoding': 'br' });
    expect(fromMagic.headers.get('content-security-policy')).toContain('https://teams.microsoft.com');
    expect(fromMagic.headers.get('x-frame-options')).toBeNull();
    expect(fromPlatform.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(fromPlatform.headers['x-frame-options']).toBe('DENY');
    await magic.close();
    expect((await get('/account/settings', { 'accept-encoding': 'br' })).status).toBe(200);
  });
});
