import type { UsersContext } from '../context.ts';
import type { TermsDocument } from '../db-types.ts';
import { AppError } from '../http/errors.ts';
import type { Caller } from '../http/caller.ts';
import { findPendingInvitationOfUser, markInvitationAccepted } from '../invitations/repository.ts';
import { personOrigin, recordEvent } from '../events/events.ts';
import { hasAcceptedCurrent, insertAcceptances } from '../terms/repository.ts';

export interface AcceptInput {
  documents: { document: TermsDocument; version: string }[];
  ipAddress: string | null;
  userAgent: string | null;
}

/** The configured current version of each document. */
function currentVersion(ctx: UsersContext, document: TermsDocument): string {
  return document === 'terms' ? ctx.config.terms.version : ctx.config.privacy.version;
}

/**
 * Records the caller's acceptance of each document (only current versions: a stale one is 409
 * `TERMS_VERSION_OUTDATED` and nothing is recorded), then makes the identity's
 * `onboarding.tosAccepted` follow. Accepting the current versions of both documents also completes
 * the caller's pending invitation: only an invited person can have a session before then (the
 * identity has no password until the emailed code was used), so it also proves the email address.
 */
export async function acceptTerms(ctx: UsersContext, caller: Caller, input: AcceptInput): Promise<boolean> {
  for (const { document, version } of input.documents) {
    if (version !== currentVersion(ctx, document)) {
      throw new AppError(
        'TERMS_VERSION_OUTDATED',
        `Version ${version} of the ${document === 'terms' ? 'terms of service' : 'privacy policy'} is not the current one (${currentVersion(ctx, document)}). Reload and accept the current version.`,
      );
    }
  }
  const now = ctx.clock.now();
  await insertAcceptances(
    ctx.db,
    input.documents.map((d) => ({
      userId: caller.user.id,
      document: d.document,
      version: d.version,
      acceptedAt: now,
      ipAddress: input.ipAddress,
      userAgent: input.userAgent,
      source: 'user' as const,
    })),
  );
  const accepted = await hasAcceptedCurrent(ctx.db, caller.user.id, ctx.config);
  if (!accepted) {
    await syncTosAccepted(ctx, caller.user.identityId, caller.session.identity.traits.onboarding, false);
    return false;
  }
  const invitation = await findPendingInvitationOfUser(ctx.db, caller.user.id);
  if (invitation) {
    // The identity first, so a failure leaves the invitation pending and the call can be retried.
    await ctx.identityAdmin.patchIdentity(caller.user.identityId, [
      { op: 'replace', path: '/traits/onboarding/tosAccepted', value: true },
      { op: 'replace', path: '/verifiable_addresses/0/verified', value: true },
    ]);
    await ctx.db.transaction().execute(async (trx) => {
      await markInvitationAccepted(trx, invitation.id, now);
      await recordEvent(
        trx,
        personOrigin(caller.user.id, input.ipAddress),
        { organisationId: caller.user.organisationId, type: 'member.joined', subjectId: caller.user.id },
        now,
      );
    });
  } else {
    await syncTosAccepted(ctx, caller.user.identityId, caller.session.identity.traits.onboarding, true);
  }
  return true;
}

/** Sets `onboarding.tosAccepted` on the identity when it differs from `value` (or is unknown). */
async function syncTosAccepted(
  ctx: UsersContext,
  identityId: string,
  onboarding: { tosAccepted?: boolean | undefined } | undefined,
  value: boolean,
): Promise<void> {
  if (onboarding?.tosAccepted === value) return;
  await ctx.identityAdmin.patchIdentity(identityId, [
    { op: 'replace', path: '/traits/onboarding/tosAccepted', value },
  ]);
}

/**
 * At each sign-in (the consent step): when the user has not accepted the current versions (a
 * version changed since), `tosAccepted` becomes false, so the app's Authenticated predicate sends
 * them to the Terms step; and back to true once they have.
 */
export async function recheckTermsAtSignIn(
  ctx: UsersContext,
  userId: string,
  identityId: string,
  traits: Record<string, unknown>,
): Promise<void> {
  const onboarding = traits.onboarding;
  const current =
    typeof onboarding === 'object' && onboarding !== null
      ? (onboarding as { tosAccepted?: unknown }).tosAccepted
      : undefined;
  const accepted = await hasAcceptedCurrent(ctx.db, userId, ctx.config);
  if (current === accepted) return;
  await ctx.identityAdmin.patchIdentity(identityId, [
    { op: 'replace', path: '/traits/onboarding/tosAccepted', value: accepted },
  ]);
}
