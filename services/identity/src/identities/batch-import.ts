import type { FastifyInstance } from 'fastify';
import type { GenericError, IdentityPatchResponse } from '@ory/client';
import type { IdentityContext } from '../context.ts';
import { isUuid } from '../db/db.ts';
import { IdentityError, errors } from '../errors/identity-error.ts';
import { readJson } from '../http/body.ts';
import { normalizeEmail } from './repo.ts';
import { CreateIdentityBodySchema, insertIdentity, parseBody } from './service.ts';

/**
 * Kratos `PATCH /admin/identities`: creates up to 1,000 identities in one call (200 when any of them
 * carries a plain password, which must be hashed here), each in its own transaction, and answers one
 * result per item in order: `{action: 'create', identity: <id>}` or `{action: 'error', error}`.
 * An address taken already, or earlier in the same batch, is that item's 409; a malformed item is its
 * 400. When every item fails the call answers the most telling of those statuses (409 when all were
 * conflicts, else 400) with the per-item results beside the error (`identities`), as Kratos answers
 * 4xx when nothing was imported.
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

    const seen = new Set<string>();
    const results: ItemResult[] = [];
    for (const item of items) {
      const patchId = (item as { patch_id?: unknown } | null)?.patch_id;
      const withPatchId = typeof patchId === 'string' && isUuid(patchId) ? { patch_id: patchId } : {};
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
        const input = parseBody(CreateIdentityBodySchema, create);
        const id = await insertIdentity(ctx.db, ctx.clock, input, ctx.passwords.hash);
        results.push({ action: 'create', identity: id, ...withPatchId });
      } catch (e) {
        results.push({ action: 'error', error: errorOf(e), ...withPatchId });
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
