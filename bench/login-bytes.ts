// What a browser downloads for the login route: the page and every script, module preload and
// stylesheet it references, fetched as a browser asks (`Accept-Encoding: br, gzip`), counting the
// body bytes as they arrive (compressed, before any decoding).
//   node --import tsx bench/login-bytes.ts [http://localhost:4000]   (against `npm start`)
import { request } from 'node:http';

interface Fetched {
  path: string;
  bytes: number;
  encoding: string;
  body: Buffer;
}

function fetchRaw(url: URL): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`${url.pathname}: ${res.statusCode}`));
        const body = Buffer.concat(chunks);
        resolve({
          path: url.pathname,
          bytes: body.length,
          encoding: String(res.headers['content-encoding'] ?? 'identity'),
          body,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The page's own bytes, decoded (it may arrive compressed). */
async function decoded(page: Fetched): Promise<string> {
  const { brotliDecompressSync, gunzipSync } = await import('node:zlib');
  if (page.encoding === 'br') return brotliDecompressSync(page.body).toString('utf8');
  if (page.encoding === 'gzip') return gunzipSync(page.body).toString('utf8');
  return page.body.toString('utf8');
}

const base = new URL(process.argv[2] ?? 'http://localhost:4000');
const page = await fetchRaw(new URL('/account/login', base));
const html = await decoded(page);
const referenced = [...html.matchAll(/<(?:script|link)\b[^>]*(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
const assets = await Promise.all(referenced.map((path) => fetchRaw(new URL(path, base))));
const all = [page, ...assets];
for (const f of all) console.log(`${String(f.bytes).padStart(8)}  ${f.encoding.padEnd(8)}  ${f.path}`);
const total = all.reduce((sum, f) => sum + f.bytes, 0);
console.log(`${String(total).padStart(8)}  bytes on the wire for the login route (${all.length} responses)`);
