import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import PostalMime from 'postal-mime';
import { SMTPServer } from 'smtp-server';
import { z } from 'zod';
import { escapeHtml, sendPage } from './html.ts';

/** A message caught by the SMTP catcher, as the JSON API returns it. */
export interface CaughtMessage {
  id: string;
  /** Header `To` addresses, comma separated (the envelope recipients when the header has none). */
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  createdAt: string;
}

interface StoredMessage extends CaughtMessage {
  /** Lower-cased envelope recipients and header To/Cc addresses, for filtering. */
  recipients: Set<string>;
}

type Address = { name: string; address?: string | undefined; group?: Address[] | undefined };

function addresses(list: Address[] | Address | undefined): { name: string; address: string }[] {
  if (!list) return [];
  const out: { name: string; address: string }[] = [];
  for (const entry of Array.isArray(list) ? list : [list]) {
    if (entry.group) out.push(...addresses(entry.group));
    else if (entry.address) out.push({ name: entry.name, address: entry.address });
  }
  return out;
}

/**
 * The mailbox: what the SMTP catcher received, newest last, at most `capacity` messages.
 * Third-party stand-in state (a developer's inbox), so it lives in memory.
 */
export class MailStore {
  private readonly messages: StoredMessage[] = [];
  private readonly waiters = new Set<() => void>();
  readonly capacity: number;

  constructor(capacity = 1000) {
    this.capacity = capacity;
  }

  add(message: StoredMessage): void {
    this.messages.push(message);
    if (this.messages.length > this.capacity) this.messages.splice(0, this.messages.length - this.capacity);
    for (const wake of [...this.waiters]) wake();
  }

  /** Newest first, optionally only those addressed to `to` (case-insensitive). */
  list(to?: string): CaughtMessage[] {
    const wanted = to?.trim().toLowerCase();
    const out: CaughtMessage[] = [];
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const m = this.messages[i]!;
      if (!wanted || m.recipients.has(wanted)) out.push(publicView(m));
    }
    return out;
  }

  get(id: string): CaughtMessage | undefined {
    const m = this.messages.find((x) => x.id === id);
    return m && publicView(m);
  }

  clear(to?: string): number {
    const wanted = to?.trim().toLowerCase();
    const before = this.messages.length;
    if (!wanted) this.messages.length = 0;
    else {
      const keep = this.messages.filter((m) => !m.recipients.has(wanted));
      this.messages.length = 0;
      this.messages.push(...keep);
    }
    return before - this.messages.length;
  }

  /** Resolves when a message matching `to` exists, or after `timeoutMs`. */
  async waitFor(to: string | undefined, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.list(to).length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.waiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.waiters.add(done);
      });
    }
  }

  /** Wakes pending waiters (on shutdown). */
  releaseWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }
}

function publicView(m: StoredMessage): CaughtMessage {
  return {
    id: m.id,
    to: m.to,
    from: m.from,
    subject: m.subject,
    text: m.text,
    html: m.html,
    createdAt: m.createdAt,
  };
}

function format(a: { name: string; address: string }): string {
  return a.name ? `${a.name} <${a.address}>` : a.address;
}

/** Parses a raw message with postal-mime into the stored shape. */
async function parseMessage(raw: Buffer, envelopeRecipients: string[]): Promise<StoredMessage> {
  const email = await PostalMime.parse(raw);
  const to = addresses(email.to as Address[] | undefined);
  const cc = addresses(email.cc as Address[] | undefined);
  const from = addresses(email.from as Address | undefined);
  const recipients = new Set(
    [...envelopeRecipients, ...to.map((a) => a.address), ...cc.map((a) => a.address)].map((a) =>
      a.toLowerCase(),
    ),
  );
  return {
    id: randomUUID(),
    to: to.length ? to.map((a) => a.address).join(', ') : envelopeRecipients.join(', '),
    from: from[0] ? format(from[0]) : '',
    subject: email.subject ?? '',
    text: email.text ?? '',
    html: email.html ?? '',
    createdAt: new Date().toISOString(),
    recipients,
  };
}

export interface SmtpCatcher {
  port: number;
  close(): Promise<void>;
}

/** SMTP catcher on loopback: no TLS, any (or no) credentials accepted, 10 MB per message. */
export async function startSmtpCatcher(
  store: MailStore,
  port: number,
  host = '127.0.0.1',
): Promise<SmtpCatcher> {
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    banner: 'Acme development SMTP catcher',
    size: 10 * 1024 * 1024,
    logger: false,
    closeTimeout: 1_000,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'dev' });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err) => callback(err));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          const err = Object.assign(new Error('Message exceeds the size limit'), { responseCode: 552 });
          callback(err);
          return;
        }
        const rcpt = session.envelope.rcptTo.map((r) => r.address);
        parseMessage(Buffer.concat(chunks), rcpt).then(
          (message) => {
            store.add(message);
            callback();
          },
          () => callback(Object.assign(new Error('Could not parse the message'), { responseCode: 554 })),
        );
      });
    },
  });
  server.on('error', () => {
    // Connection-level errors (a client hanging up) are not fatal to the catcher.
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.server.once('error', onError);
    server.listen(port, host, () => {
      server.server.off('error', onError);
      resolve();
    });
  });
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const listQuery = z.object({
  to: z.string().trim().max(320).optional(),
  /** Long poll: wait up to this many ms for a matching message before answering. */
  waitMs: z.coerce.number().int().min(0).max(30_000).optional(),
});
const idParams = z.object({ id: z.uuid() });

function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

/** Mailbox page and JSON API under `/mail`. */
export function mailboxRoutes(store: MailStore) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.setErrorHandler((err: { statusCode?: number; message: string }, _req, reply) => {
      const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
      return reply
        .status(status)
        .send({ error: status === 500 ? 'internal_error' : 'bad_request', message: err.message });
    });

    app.get('/api/messages', async (req, reply) => {
      const q = listQuery.safeParse(req.query);
      if (!q.success)
        return reply.status(400).send({ error: 'bad_request', message: q.error.issues[0]?.message });
      if (q.data.waitMs) await store.waitFor(q.data.to, q.data.waitMs);
      return reply.header('cache-control', 'no-store').send(store.list(q.data.to));
    });

    app.get('/api/messages/:id', async (req, reply) => {
      const p = idParams.safeParse(req.params);
      const message = p.success ? store.get(p.data.id) : undefined;
      if (!message) return reply.status(404).send({ error: 'not_found', message: 'No such message' });
      return reply.header('cache-control', 'no-store').send(message);
    });

    app.delete('/api/messages', async (req, reply) => {
      const q = listQuery.safeParse(req.query);
      if (!q.success)
        return reply.status(400).send({ error: 'bad_request', message: q.error.issues[0]?.message });
      store.clear(q.data.to);
      return reply.status(204).send();
    });

    app.get('/', async (req, reply) => {
      const q = listQuery.safeParse(req.query);
      const to = q.success ? q.data.to : undefined;
      const messages = store.list(to);
      const rows = messages
        .map(
          (m) => `<tr>
<td><a href="/mail/${m.id}">${escapeHtml(m.subject || '(no subject)')}</a></td>
<td>${escapeHtml(m.to)}</td>
<td>${escapeHtml(formatTime(m.createdAt))}</td>
</tr>`,
        )
        .join('\n');
      return sendPage(
        reply,
        'Mailbox',
        `<header>Development mailbox</header>
<main>
<h1>Mailbox</h1>
<form method="get" action="/mail"><label for="to">Filter by recipient</label>
<input type="text" id="to" name="to" value="${escapeHtml(to ?? '')}"> <button type="submit">Filter</button></form>
<p class="muted">${messages.length} message(s), newest first. Refresh the page to see new mail. JSON: <a href="/mail/api/messages">/mail/api/messages</a>.</p>
<table>
<thead><tr><th scope="col">Subject</th><th scope="col">To</th><th scope="col">Received</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="3">No messages yet.</td></tr>'}
</tbody>
</table>
</main>`,
        { csp: ["form-action 'self'"] },
      );
    });

    app.get('/:id', async (req, reply) => {
      const p = idParams.safeParse(req.params);
      const m = p.success ? store.get(p.data.id) : undefined;
      if (!m) return sendPage(reply.status(404), 'Not found', '<main><h1>No such message</h1></main>');
      const links = [...new Set(m.text.match(/https?:\/\/[^\s<>"']+/g) ?? [])];
      const linkList = links.length
        ? `<h2>Links</h2><ul>${links.map((l) => `<li><a href="${escapeHtml(l)}" rel="noreferrer">${escapeHtml(l)}</a></li>`).join('')}</ul>`
        : '';
      const htmlPart = m.html
        ? `<h2>HTML</h2><iframe sandbox="" title="HTML part" src="/mail/${m.id}/html"></iframe>`
        : '';
      return sendPage(
        reply,
        m.subject || 'Message',
        `<header>Development mailbox</header>
<main>
<p><a href="/mail">&larr; All messages</a></p>
<h1>${escapeHtml(m.subject || '(no subject)')}</h1>
<table>
<tr><th scope="row">From</th><td>${escapeHtml(m.from)}</td></tr>
<tr><th scope="row">To</th><td>${escapeHtml(m.to)}</td></tr>
<tr><th scope="row">Received</th><td>${escapeHtml(formatTime(m.createdAt))}</td></tr>
</table>
<h2>Text</h2>
<pre>${escapeHtml(m.text)}</pre>
${linkList}
${htmlPart}
</main>`,
        { csp: ["frame-src 'self'"] },
      );
    });

    // The HTML part, shown only inside the sandboxed frame: no script, no network, unique origin.
    app.get('/:id/html', async (req, reply) => {
      const p = idParams.safeParse(req.params);
      const m = p.success ? store.get(p.data.id) : undefined;
      if (!m || !m.html) return reply.status(404).send({ error: 'not_found', message: 'No such message' });
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header(
          'content-security-policy',
          "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'",
        )
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(m.html);
    });
  };
}
