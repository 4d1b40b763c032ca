import { createHash, randomBytes } from 'node:crypto';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import type { Caller } from '../http/caller.ts';

/** How long a started connection may take (the host's authorize page round trip). */
export const STATE_TTL_MS = 10 * 60 * 1000;

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** The app's callback route on the caller's origin (an allowed app origin), else the configured app. */
export function redirectUriFor(ctx: UsersContext, origin: string | undefined): string {
  const base =
    origin !== undefined && ctx.config.appOrigins.includes(origin) ? origin : ctx.config.appBaseUrl;
  return `${base}/account/callback`;
}

/**
 * Starts linking the caller's source-code-host account: a random `state` (stored only as its
 * SHA-256, bound to the caller, the app's `flow` and the redirect URI, valid 10 minutes) and the
 * host's authorize URL carrying it.
 */
export async function initialise(
  ctx: UsersContext,
  caller: Caller,
  flow: string,
  origin: string | undefined,
) {
  const state = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  const redirectUri = redirectUriFor(ctx, origin);
  await ctx.db
    .deleteFrom('git_auth_states')
    .where('user_id', '=', caller.user.id)
    .where('expires_at', '<', now)
    .execute();
  await ctx.db
    .insertInto('git_auth_states')
    .values({
      state_hash: hashState(state),
      user_id: caller.user.id,
      flow,
      redirect_uri: redirectUri,
      created_at: now,
      expires_at: new Date(now.getTime() + STATE_TTL_MS),
      used_at: null,
    })
    .execute();
  return { authenticationUrl: ctx.gitHost.authorizeUrl(state, redirectUri) };
}

/**
 * Finishes linking: the code must not be an authorization-server code (prefix "ory"), a started
 * connection of this caller must exist (the given `state`, or without one the caller's newest
 * unexpired one) and is spent whatever happens next, the code is exchanged at the host, and the
 * account read from `GET /user` is stored and marked on the identity (`gitProviderConnected`).
 */
export async function complete(ctx: UsersContext, caller: Caller, code: string, state: string | undefined) {
  const now = ctx.clock.now();
  let query = ctx.db
    .selectFrom('git_auth_states')
    .select(['state_hash', 'redirect_uri'])
    .where('user_id', '=', caller.user.id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now);
  if (state !== undefined) query = query.where('state_hash', '=', hashState(state));
  const pending = await query.orderBy('created_at', 'desc').limit(1).executeTakeFirst();
  const spent =
    pending &&
    (await ctx.db
      .updateTable('git_auth_states')
      .set({ used_at: now })
      .where('state_hash', '=', pending.state_hash)
      .where('used_at', 'is', null)
      .executeTakeFirst());
  if (!pending || !spent || Number(spent.numUpdatedRows) === 0) {
    throw new AppError(
      'INVALID_STATE',
      'No source-code-host connection was started for this session, or it expired. Start again.',
    );
  }

  const account = await ctx.gitHost.userForCode(code, pending.redirect_uri);
  await ctx.db
    .insertInto('git_links')
    .values({
      user_id: caller.user.id,
      provider: 'github',
      host_user_id: account.id,
      login: account.login,
      linked_at: now,
    })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        provider: 'github',
        host_user_id: account.id,
        login: account.login,
        linked_at: now,
      }),
    )
    .execute();
  await ctx.identityAdmin.patchIdentity(caller.user.identityId, [
    { op: 'replace', path: '/traits/onboarding/gitProviderConnected', value: true },
  ]);
  return { connected: true as const, login: account.login };
}
