import { openApi } from '@acme/service-kit/openapi';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { IdentityContext } from '../context.ts';
import { recordSecurityEvent } from '../db/security-events.ts';
import { readJson } from '../http/body.ts';
import { findIdentityIdByIdentifier } from '../identities/repo.ts';
import { parseBody } from '../identities/service.ts';
import { unlockAccount } from './attempts.ts';
import { normalizeIdentifier } from './backoff.ts';

const UnlockBody = z.object({ identifier: z.string().min(1).max(320) });

/**
 * `POST /admin/lockouts/reset {identifier}`: an operator ends the sign-in lockout of an address
 * (password failures, wrong recovery or verification codes, wrong 2FA codes). Answers 204 whether
 * or not anything was locked, and whether or not the address belongs to an identity.
 */
export function registerLockoutAdminRoutes(app: FastifyInstance, ctx: IdentityContext): void {
  app.post(
    '/admin/lockouts/reset',
    openApi({ body: UnlockBody, responses: { 204: null } }),
    async (req, reply) => {
      const { identifier } = parseBody(UnlockBody, readJson(req));
      const key = normalizeIdentifier(identifier);
      const identityId = await findIdentityIdByIdentifier(ctx.db, 'password', key);
      await ctx.db.transaction().execute(async (trx) => {
        await unlockAccount(trx, key, identityId);
        if (identityId)
          await recordSecurityEvent(trx, ctx, {
            type: 'account.unlocked',
            subjectId: identityId,
            actor: { kind: 'operator', id: null },
            at: ctx.clock.now(),
          });
      });
      req.log.info({ identityId: identityId ?? null }, 'sign-in lockout reset by an operator');
      return reply.code(204).send();
    },
  );
}
