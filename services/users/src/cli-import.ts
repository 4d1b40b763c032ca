import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { resolveTarget, unreachable, type CliIo } from './cli-kit.ts';

/**
 * `npm run admin -- identities:import <file.jsonl>`: one identity per line, in the body Kratos's
 * `POST /admin/identities` takes (`schema_id`, `traits`, `verifiable_addresses`, `credentials.password.
 * config.hashed_password`…). The file is streamed and sent in batches to `PATCH /admin/identities`
 * (1,000 a call; 200 when a batch holds a plain password). It can be run again: an address that has an
 * account already is counted as there, not created twice. A progress line goes to stderr after each
 * batch; failures name their line; the summary is printed as JSON.
 */

const BATCH = 1000;
const BATCH_PLAIN = 200;

interface ImportSummary {
  lines: number;
  imported: number;
  alreadyThere: number;
  failed: number;
}

type SendBatch = (body: unknown) => Promise<{ status: number; body: unknown }>;

interface ItemResult {
  action?: string;
  error?: { code?: number; reason?: string; message?: string };
}

const hasPlainPassword = (item: unknown) =>
  typeof (item as { credentials?: { password?: { config?: { password?: unknown } } } } | null)?.credentials
    ?.password?.config?.password === 'string';

async function importIdentities(
  file: string,
  send: SendBatch,
  progress: (line: string) => void,
): Promise<ImportSummary> {
  const summary: ImportSummary = { lines: 0, imported: 0, alreadyThere: 0, failed: 0 };
  let batch: { line: number; create: unknown }[] = [];
  let plain = false;

  const flush = async () => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    plain = false;
    const res = await send({ identities: sent.map(({ create }) => ({ create })) });
    const results = (res.body as { identities?: ItemResult[] } | null)?.identities;
    if (!Array.isArray(results) || results.length !== sent.length) {
      const reason =
        (res.body as { error?: { reason?: string } } | null)?.error?.reason ?? `status ${res.status}`;
      throw new Error(
        `lines ${sent[0]!.line}–${sent[sent.length - 1]!.line}: the batch was refused: ${reason}`,
      );
    }
    results.forEach((r, i) => {
      if (r.action === 'create') summary.imported++;
      else if (r.error?.code === 409) summary.alreadyThere++;
      else {
        summary.failed++;
        progress(`line ${sent[i]!.line}: ${r.error?.reason ?? r.error?.message ?? 'refused'}`);
      }
    });
    progress(
      `identities:import: ${summary.lines} lines, ${summary.imported} imported, ${summary.alreadyThere} already there, ${summary.failed} failed`,
    );
  };

  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const text of lines) {
    summary.lines++;
    if (text.trim() === '') continue;
    let create: unknown;
    try {
      create = JSON.parse(text);
    } catch {
      summary.failed++;
      progress(`line ${summary.lines}: not JSON`);
      continue;
    }
    if (hasPlainPassword(create)) {
      if (!plain && batch.length >= BATCH_PLAIN) await flush();
      plain = true;
    }
    batch.push({ line: summary.lines, create });
    if (batch.length >= (plain ? BATCH_PLAIN : BATCH)) await flush();
  }
  await flush();
  return summary;
}

/** `identities:import <file.jsonl>` against the identity service's admin API. */
export async function runImport(file: string, io: CliIo): Promise<number> {
  const target = resolveTarget('identity', io);
  if (typeof target === 'number') return target;
  try {
    const summary = await importIdentities(
      file,
      async (body) => {
        const res = await fetch(`${target.base}/admin/identities`, {
          method: 'PATCH',
          headers: { ...target.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: reported as the batch's refusal
        }
        return { status: res.status, body: parsed };
      },
      (line) => io.err(line),
    );
    io.out(JSON.stringify(summary, null, 2));
    return summary.failed === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof TypeError && error.cause instanceof Error) io.err(unreachable(target.base, error));
    else io.err(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
