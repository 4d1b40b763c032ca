import { createHash, randomBytes } from 'node:crypto';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import type { Caller } from '../http/caller.ts';

/** How long a started connection may take (the host's authorize page round trip). */
const STATE_TTL_MS = 10 * 60 * 1000;

const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/** The app's callback route on the caller's origin (an allowed app origin), else the configured app. */
function redirectUriFor(ctx: UsersContext, origin: string | undefined): string {
  const base =
    origin !== undefined && ctx.config.appOrigins.includes(origin) ? origin : ctx.config.appBaseUrl;
  return `${base}/account/callback`;
}

/**
 * Starts linking the caller's source-code-host account: a random `state` (stored only as its
 * SHA-256, bound to the caller's user and identity session, the app's `flow` and the redirect URI,
 * valid 10 minutes, single use) and the host's authorize URL carrying it.
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
      session_id: caller.session.id,
    })
    .execute();
  return { authenticationUrl: ctx.gitHost.authorizeUrl(state, redirectUri) };
}

/**
 * Unlinks the caller's source-code-host account. It needs a privileged session (signed in within
 * `PRIVILEGED_SESSION_MAX_AGE`, as the identity service's own settings changes): otherwise
 * 403 REAUTHENTICATION_REQUIRED, and the app has the person confirm their password first. For a
 * source-code-host user the app starts linking another account right after ("replace").
 */
export async function unlink(ctx: UsersContext, caller: Caller) {
  const at = Date.parse(caller.session.authenticated_at ?? '');
  if (!(at + ctx.config.privilegedSessionMaxAgeMs > ctx.clock.now().getTime())) {
    throw new AppError(
      'REAUTHENTICATION_REQUIRED',
      'Please confirm your password to unlink your source-code host account.',
    );
  }
  const removed = await ctx.db
    .deleteFrom('git_links')
    .where('user_id', '=', caller.user.id)
    .executeTakeFirst();
  await ctx.identityAdmin.patchIdentity(caller.user.identityId, [
    { op: 'replace', path: '/traits/onboarding/gitProviderConnected', value: false },
  ]);
  return { connected: false as const, removed: Number(removed.numDeletedRows) > 0 };
}

/**
 * Finishes linking: the code must not be an authorization-server code (prefix "ory"), and the
 * `state` must be one this caller's identity session started less than 10 minutes ago and not
 * used yet. Checking and spending the state is one conditional update, so it works once; without
 * that binding an attacker could have their own host code linked to a victim's account. Then the
 * code is exchanged at the host, and the account read from `GET /user` is stored and marked on the
 * identity (`gitProviderConnected`).
 */
export async function complete(ctx: UsersContext, caller: Caller, code: string, state: string) {
  const now = ctx.clock.now();
  const pending = await ctx.db
    .updateTable('git_auth_states')
    .set({ used_at: now })
    .where('state_hash', '=', hashState(state))
    .where('user_id', '=', caller.user.id)
    .where('session_id', '=', caller.session.id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['state_hash', 'redirect_uri'])
    .executeTakeFirst();
  if (!pending) {
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
