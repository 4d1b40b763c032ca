import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { join, normalize, sep } from 'node:path';
import type { Readable } from 'node:stream';
import send from '@fastify/send';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

// The build's files, served by @fastify/static: the `.br` or `.gz` that `vite build` wrote beside
// each file (vite.config.ts) chosen by Accept-Encoding (with `Vary: Accept-Encoding` on every
// answer), a strong ETag per representation and 304 on If-None-Match. Hashed assets are cached for
// a year; the page is revalidated on every load. Paths that are not files of the build get the SPA
// page (the app's router decides what they show), except under assets/ (a 404: a stale tab must
// not run HTML as script).

const BASE = '/account/';
const ASSETS = `${BASE}assets/`;
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

// RFC 9239: JavaScript is text/javascript (mime 3, inside @fastify/send, still says application/…).
send.mime.define({ 'text/javascript': ['js', 'mjs'] }, true);

/** A strong validator for these exact bytes: the same in every instance serving the same build. */
export function strongEtag(body: Buffer | string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** True when If-None-Match names this ETag or is `*` (weak comparison, RFC 9110 13.1.2). */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** ETag of every file under dist (dot directories such as .vite are never served), by absolute path. */
async function etagsOf(distDir: string): Promise<Map<string, string>> {
  const etags = new Map<string, string>();
  const entries = await readdir(distDir, { recursive: true, withFileTypes: true });
  await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const path = join(entry.parentPath, entry.name);
        etags.set(path, strongEtag(await readFile(path)));
      }),
  );
  return etags;
}

/** Whether a /account/… path may name a file of the build (traversal, NUL and dot files refused). */
function isFilePath(distDir: string, pathname: string): boolean {
  if (!pathname.startsWith(BASE)) return false;
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice(BASE.length));
  } catch {
    return false;
  }
  if (relative === '' || relative.includes('\0')) return false;
  if (relative.split('/').some((part) => part.startsWith('.'))) return false;
  return normalize(join(distDir, relative)).startsWith(distDir + sep);
}

/** 304 instead of the body when the client already holds this representation. */
function notModified(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const etag = reply.getHeader('etag');
  const ifNoneMatch = request.headers['if-none-match'];
  if (reply.statusCode !== 200 || typeof etag !== 'string' || !matchesEtag(ifNoneMatch, etag)) {
    return Promise.resolve(payload);
  }
  (payload as Readable | null)?.destroy?.();
  reply.code(304);
  for (const name of ['content-length', 'content-type', 'content-encoding', 'accept-ranges'])
    reply.removeHeader(name);
  return Promise.resolve(null);
}

export interface StaticFiles {
  /** Answers with the build's file or the SPA page; headers already set on `res` are kept. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

async function start(distDir: string) {
  const etags = await etagsOf(distDir);
  const assetsDir = join(distDir, 'assets') + sep;
  const app = Fastify({
    logger: false,
    // Anything that cannot be a file of the build goes to the SPA page, before the router sees it.
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      return isFilePath(distDir, new URL(url, 'http://localhost').pathname) ? url : '/';
    },
  });
  app.addHook('onSend', notModified);
  await app.register(fastifyStatic, {
    root: distDir,
    prefix: BASE,
    preCompressed: true,
    index: false,
    // Our own validators: strong, from the bytes (the library's are weak, from size and mtime).
    etag: false,
    lastModified: false,
    cacheControl: false,
    setHeaders: (reply, path) => {
      const etag = etags.get(path);
      if (etag) reply.header('etag', etag);
      reply.header('cache-control', path.startsWith(assetsDir) ? IMMUTABLE : REVALIDATE);
    },
  });
  app.setNotFoundHandler((request, reply) => {
    if (request.url.startsWith(ASSETS)) {
      return reply
        .code(404)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('Not Found');
    }
    // SPA fallback: /, /research, /account/* and every other path.
    return reply.code(200).sendFile('index.html');
  });
  await app.ready();
  return app;
}

// One server per build, shared by every application serving it (eight in `npm start`): the
// applications differ only in the headers that serve.ts sets on each response before handing it over.
const shared = new Map<string, { app: ReturnType<typeof start>; users: number }>();

/** Serves the build in distDir under /account/ (read once: a build is not changed while served). */
export async function staticFiles(distDir: string): Promise<StaticFiles> {
  let entry = shared.get(distDir);
  if (!entry) {
    entry = { app: start(distDir), users: 0 };
    shared.set(distDir, entry);
  }
  const current = entry;
  current.users += 1;
  let app: Awaited<ReturnType<typeof start>>;
  try {
    app = await current.app;
  } catch (error) {
    if (shared.get(distDir) === current) shared.delete(distDir);
    throw error;
  }
  let closed = false;
  return {
    handle: (req, res) => app.routing(req, res),
    close: async () => {
      if (closed) return;
      closed = true;
      current.users -= 1;
      if (current.users > 0) return;
      if (shared.get(distDir) === current) shared.delete(distDir);
      await app.close();
    },
  };
}
