import type { FastifyInstance } from 'fastify';
import type { GenericError, IdentityPatchResponse } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import { isUuid } from '../db/db.ts';
import { IdentityError, errors } from '../errors/identity-error.ts';
import { readJson } from '../http/body.ts';
import { normalizeEmail, takenEmails, type NewIdentityRows } from './repo.ts';
import {
  conflictError,
  CreateIdentityBodySchema,
  isConflict,
  parseBody,
  prepareIdentity,
  writeIdentities,
} from './service.ts';

/**
 * Kratos `PATCH /admin/identities`: creates up to 1,000 identities in one call (200 when any of them
 * carries a plain password, which must be hashed here), and answers one result per item in order:
 * `{action: 'create', identity: <id>}` or `{action: 'error', error}`. An address taken already, or earlier in the same batch, is that item's 409; a malformed item is its
 * 400. When every item fails the call answers the most telling of those statuses (409 when all were
 * conflicts, else 400) with the per-item results beside the error (`identities`), as Kratos answers
 * 4xx when nothing was imported. The items that pass their checks are written together: one query
 * for the addresses taken already, then one transaction of multi-row inserts (falling back to one
 * transaction per item only when an address was taken meanwhile), so each item is still written
 * whole or not at all.
 */

const MAX_BATCH = 1000;
const MAX_BATCH_PLAIN = 200;
/** 1,000 imported identities with their hashes and addresses fit well within 4 MiB. */
const BATCH_BODY_LIMIT = 4 * 1024 * 1024;

type ItemResult = IdentityPatchResponse;

function errorOf(e: unknown): GenericError {
  if (e instanceof IdentityError) return e.content();
  throw e;
}

function emailOf(create: unknown): string | undefined {
  const email = (create as { traits?: { email?: unknown } } | null)?.traits?.email;
  return typeof email === 'string' ? normalizeEmail(email) : undefined;
}

const hasPlainPassword = (create: unknown) =>
  typeof (create as { credentials?: { password?: { config?: { password?: unknown } } } } | null)?.credentials
    ?.password?.config?.password === 'string';

export function registerBatchImportRoute(app: FastifyInstance, ctx: IdentityContext): void {
  app.patch('/admin/identities', { bodyLimit: BATCH_BODY_LIMIT }, async (req, reply) => {
    const body = readJson(req) as { identities?: unknown } | null;
    if (typeof body !== 'object' || body === null || !Array.isArray(body.identities))
      throw errors.badRequest('The request body needs an `identities` array.');
    const items: unknown[] = body.identities;
    const plain = items.some((i) => hasPlainPassword((i as { create?: unknown } | null)?.create));
    const max = plain ? MAX_BATCH_PLAIN : MAX_BATCH;
    if (items.length > max)
      throw errors.badRequest(
        `At most ${max} identities per call${plain ? ' when any carries a plain password' : ''}; this call has ${items.length}.`,
      );

    // First the checks that need no database, in order (an address earlier in the batch wins), then
    // each remaining item prepared (plain passwords hashed in the service's pool, side by side).
    const seen = new Set<string>();
    const results: ItemResult[] = new Array(items.length);
    const patchIds: { patch_id?: string }[] = [];
    const candidates: { index: number; create: unknown }[] = [];
    items.forEach((item, index) => {
      const patchId = (item as { patch_id?: unknown } | null)?.patch_id;
      const withPatchId = typeof patchId === 'string' && isUuid(patchId) ? { patch_id: patchId } : {};
      patchIds[index] = withPatchId;
      try {
        if (typeof item !== 'object' || item === null || Array.isArray(item))
          throw errors.badRequest('Each item must be an object with `create`.');
        if (patchId !== undefined && withPatchId.patch_id === undefined)
          throw errors.badRequest('patch_id must be a UUID.');
        const { create } = item as { create?: unknown };
        if (typeof create !== 'object' || create === null)
          throw errors.badRequest('Only the `create` action is supported: the item needs `create`.');
        const email = emailOf(create);
        if (email !== undefined) {
          if (seen.has(email))
            throw new IdentityError(409, {
              reason: 'This identity conflicts with another identity in the same batch.',
            });
          seen.add(email);
        }
        candidates.push({ index, create });
      } catch (e) {
        results[index] = { action: 'error', error: errorOf(e), ...withPatchId };
      }
    });
    const failed = (index: number, e: unknown) => {
      results[index] = { action: 'error', error: errorOf(e), ...patchIds[index] };
    };
    const ready: { index: number; identity: NewIdentityRows }[] = [];
    // As many items at once as the pool hashes at once: the import never fills the pool's queue, so
    // neither its own items nor sign-ins meanwhile are refused for a full queue.
    let next = 0;
    const prepareNext = async () => {
      while (next < candidates.length) {
        const { index, create } = candidates[next++]!;
        try {
          const input = parseBody(CreateIdentityBodySchema, create);
          ready.push({ index, identity: await prepareIdentity(input, ctx.passwords.hash) });
        } catch (e) {
          failed(index, e);
        }
      }
    };
    const lanes = Math.max(1, Math.min(ctx.config.hashPool.concurrency, candidates.length));
    await Promise.all(Array.from({ length: lanes }, prepareNext));
    ready.sort((a, b) => a.index - b.index);

    // Addresses that have an identity already are those items' 409, found in one query; the rest are
    // written in one transaction of multi-row inserts.
    const taken = await takenEmails(
      ctx.db,
      ready.map((r) => r.identity.email),
    );
    const writable = ready.filter(({ index, identity }) => {
      if (!taken.has(identity.email)) return true;
      failed(index, conflictError());
      return false;
    });
    const created = ({ index, identity }: (typeof ready)[number]) => {
      results[index] = { action: 'create', identity: identity.id, ...patchIds[index] };
    };
    try {
      await writeIdentities(
        ctx.db,
        ctx.clock,
        writable.map((w) => w.identity),
      );
      writable.forEach(created);
    } catch (e) {
      if (!isConflict(e)) throw e;
      // An address taken between the check and the write (another import, a sign-up): each item
      // alone, so only the conflicting ones fail.
      for (const item of writable) {
        try {
          await writeIdentities(ctx.db, ctx.clock, [item.identity]);
          created(item);
        } catch (one) {
          failed(item.index, isConflict(one) ? conflictError() : one);
        }
      }
    }

    if (results.length > 0 && results.every((r) => r.action === 'error')) {
      const allConflicts = results.every((r) => (r.error as GenericError).code === 409);
      throw new IdentityError(allConflicts ? 409 : 400, {
        reason: 'None of the identities could be imported.',
        // Beside Kratos's envelope (its `details` holds no fields), so the caller still sees each item.
        extra: { identities: results },
      });
    }
    return reply.send({ identities: results });
  });
}
