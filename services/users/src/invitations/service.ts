import { randomUUID } from 'node:crypto';
import type { Locale } from '@acme/i18n';
import { renderInvitation } from '@acme/mail';
import type { RecoveryCode } from '../clients/identity-admin.ts';
import type { Transaction } from 'kysely';
import type { UsersDb } from '../db-types.ts';
import type { UsersContext } from '../context.ts';
import { isUniqueViolation } from '../http/db-errors.ts';
import { AppError } from '../http/errors.ts';
import { uuidSchema } from '../http/schemas.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { createUser, removeUserAndIdentity } from '../users/create-user.ts';
import { personLocale } from '../users/locale.ts';
import { findInvitation, insertInvitation, markInvitationRevoked, reissueInvitation } from './repository.ts';
import type { CreateInvitationInput, Invitation } from './schemas.ts';

const HOUR_MS = 60 * 60 * 1000;

/** Runs inside the transaction that records the change (the console writes its security event there). */
export type InvitationHook = (
  trx: Transaction<UsersDb>,
  invitation: { id: string; userId: string; organisationId: string },
) => Promise<void>;
const DAY_MS = 24 * HOUR_MS;

/** The link of the invitation email: the app's onboarding screen with the recovery flow and code. */
function onboardingLink(ctx: UsersContext, code: RecoveryCode): string {
  const url = new URL('/account/onboarding', ctx.config.appBaseUrl);
  url.searchParams.set('flow', code.flowId);
  url.searchParams.set('code', code.code);
  return url.toString();
}

function expiresIn(ctx: UsersContext): string {
  return `${ctx.config.invitationTtlHours}h`;
}

async function organisationName(ctx: UsersContext, organisationId: string): Promise<string> {
  return (await findOrganisation(ctx.db, organisationId))?.name ?? ctx.config.appName;
}

/** Who sends an invitation from the console: their language is the mail's when the invitee has none. */
export interface Inviter {
  identityId: string;
}

/**
 * The language of an invitation mail: the invitee's own `traits.locale` (a re-invited or adopted
 * person may have one), else the inviting console admin's, else English (the admin API and SCIM
 * invite for no person). Read before the mail's transaction; an identity service that does not
 * answer means English.
 */
async function invitationLocale(
  ctx: UsersContext,
  inviteeIdentityId: string,
  inviter?: Inviter,
): Promise<Locale> {
  return (
    (await personLocale(ctx, inviteeIdentityId)) ??
    (await personLocale(ctx, inviter?.identityId ?? null)) ??
    'en'
  );
}

async function sendMail(
  ctx: UsersContext,
  invitation: { email: string; firstName: string },
  inviterOrg: string,
  code: RecoveryCode,
  expiresAt: Date,
  trx: Transaction<UsersDb>,
  locale: Locale,
): Promise<void> {
  const mail = renderInvitation({
    locale,
    link: onboardingLink(ctx, code),
    inviterOrg,
    firstName: invitation.firstName,
    appName: ctx.config.appName,
    expiresAt,
  });
  await ctx.mailer.enqueue({ to: invitation.email, ...mail }, trx);
}

/**
 * Invites a person: creates the user and their identity (no password, `tosAccepted` false, MFA
 * deadline now + grace, address not yet verified), an admin recovery code valid for the invitation's
 * lifetime, and, in one transaction, the invitation record and its email in the outbox. Any failure
 * after the user was created removes the user and the identity again, so the call can be retried.
 */
export async function createInvitation(
  ctx: UsersContext,
  input: CreateInvitationInput,
  inTransaction?: InvitationHook,
  inviter?: Inviter,
): Promise<Invitation> {
  let user: {
    id: string;
    organisationId: string;
    email: string;
    firstName: string;
    identityId: string | null;
  };
  let created = true;
  try {
    user = await createUser(ctx, { ...input, password: undefined }, { emailVerified: false });
  } catch (error) {
    const adopted =
      error instanceof AppError && error.errorCode === 'USER_EXISTS'
        ? await adoptNeverOnboardedUser(ctx, input)
        : undefined;
    if (!adopted) throw error;
    user = adopted;
    created = false;
  }
  const identityId = user.identityId;
  if (identityId === null) throw new Error('invited user has no identity');
  try {
    const inviterOrg = await organisationName(ctx, user.organisationId);
    const locale = await invitationLocale(ctx, identityId, inviter);
    const code = await ctx.identityAdmin.createRecoveryCode(identityId, expiresIn(ctx));
    const now = ctx.clock.now();
    const expiresAt = new Date(now.getTime() + ctx.config.invitationTtlHours * HOUR_MS);
    const id = randomUUID();
    await ctx.db.transaction().execute(async (trx) => {
      await insertInvitation(trx, {
        id,
        organisationId: user.organisationId,
        userId: user.id,
        identityId,
        flowId: code.flowId,
        expiresAt,
        now,
      });
      await sendMail(ctx, user, inviterOrg, code, expiresAt, trx, locale);
      await inTransaction?.(trx, { id, userId: user.id, organisationId: user.organisationId });
    });
    const invitation = await findInvitation(ctx.db, id, now);
    if (!invitation) throw new Error('invitation vanished after insert');
    return invitation;
  } catch (error) {
    if (created) await removeUserAndIdentity(ctx, user.id, identityId).catch(() => undefined);
    // Two invitations raced for one never-onboarded user: one invitation per user.
    if (isUniqueViolation(error)) throw new AppError('USER_EXISTS', 'This user already has an invitation.');
    throw error;
  }
}

/**
 * The email belongs to a user of the same organisation who never onboarded: no invitation, no
 * terms acceptance (so no password given by an operator, nothing accepted), an identity. That is
 * what an invitation interrupted between creating the user and recording the invitation leaves, or
 * a user created without a password: inviting them is then what the admin wants. Their identity
 * gets the invitation's onboarding traits. Anyone else stays 409 `USER_EXISTS`.
 */
async function adoptNeverOnboardedUser(ctx: UsersContext, input: CreateInvitationInput) {
  const row = await ctx.db
    .selectFrom('users')
    .selectAll()
    .where('email', '=', input.email)
    .where('organisation_id', '=', input.organisationId)
    .where('identity_id', 'is not', null)
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('invitations').select('id').whereRef('invitations.user_id', '=', 'users.id')),
      ),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('terms_acceptances')
            .select('id')
            .whereRef('terms_acceptances.user_id', '=', 'users.id'),
        ),
      ),
    )
    .executeTakeFirst();
  if (!row || row.identity_id === null) return undefined;
  // Someone may have signed up with this address without ever proving it: whatever they set up
  // (password, passkeys, second factors, sessions) is removed, and the address told, before the
  // invited person is given the account.
  await ctx.identityAdmin.reclaimUnproven(row.identity_id);
  const now = ctx.clock.now();
  await ctx.identityAdmin.patchIdentity(row.identity_id, [
    { op: 'replace', path: '/state', value: 'active' },
    { op: 'replace', path: '/traits/onboarding/isGitUser', value: input.isGitUser },
    {
      op: 'replace',
      path: '/traits/onboarding/mfaSetupDeadline',
      value: new Date(now.getTime() + ctx.config.mfaGraceDays * DAY_MS).toISOString(),
    },
  ]);
  return {
    id: row.id,
    organisationId: row.organisation_id,
    email: row.email,
    firstName: row.first_name,
    identityId: row.identity_id,
  };
}

async function existing(ctx: UsersContext, id: string): Promise<Invitation> {
  const invitation = uuidSchema.safeParse(id).success
    ? await findInvitation(ctx.db, id, ctx.clock.now())
    : null;
  if (!invitation) throw invitationNotFound();
  return invitation;
}

export function invitationNotFound(): AppError {
  return new AppError('INVITATION_NOT_FOUND', 'No invitation has this id.');
}

function alreadyAccepted(): AppError {
  return new AppError('INVITATION_ACCEPTED', 'The invitation was already accepted.');
}

/**
 * Sends a fresh link: a new recovery code (new flow, new expiry, MFA deadline moved to now + grace,
 * identity active again if the invitation had been revoked). Every earlier link dies first: the
 * identity service ends all unfinished recovery flows of the identity (one statement) and its
 * sessions, and only then issues the new code; the invitation record, its flow history and the
 * mail then commit in one transaction. A crash at any point therefore leaves no usable link:
 * before the new code the old ones are already dead, and a new code that never reached the
 * outbox is known to no one. Earlier links answer `expired` from `/invitations/status`.
 */
export async function resendInvitation(
  ctx: UsersContext,
  id: string,
  inTransaction?: InvitationHook,
  inviter?: Inviter,
): Promise<Invitation> {
  const invitation = await existing(ctx, id);
  if (invitation.state === 'accepted') throw alreadyAccepted();
  const now = ctx.clock.now();
  await ctx.identityAdmin.endRecoveryFlows(invitation.identityId);
  await ctx.identityAdmin.deleteSessions(invitation.identityId);
  await ctx.identityAdmin.patchIdentity(invitation.identityId, [
    { op: 'replace', path: '/state', value: 'active' },
    {
      op: 'replace',
      path: '/traits/onboarding/mfaSetupDeadline',
      value: new Date(now.getTime() + ctx.config.mfaGraceDays * DAY_MS).toISOString(),
    },
  ]);
  const inviterOrg = await organisationName(ctx, invitation.organisationId);
  const locale = await invitationLocale(ctx, invitation.identityId, inviter);
  const code = await ctx.identityAdmin.createRecoveryCode(invitation.identityId, expiresIn(ctx));
  const expiresAt = new Date(now.getTime() + ctx.config.invitationTtlHours * HOUR_MS);
  const reissued = await ctx.db.transaction().execute(async (trx) => {
    if (!(await reissueInvitation(trx, invitation.id, code.flowId, expiresAt, now))) return false;
    await sendMail(ctx, invitation, inviterOrg, code, expiresAt, trx, locale);
    await inTransaction?.(trx, invitation);
    return true;
  });
  if (!reissued) throw alreadyAccepted();
  return (await findInvitation(ctx.db, invitation.id, now))!;
}

/**
 * Revokes an invitation that was not accepted. The identity side goes first: deactivating the
 * identity ends its sessions and every unfinished recovery flow in the identity service's own
 * transaction (the explicit calls after it repeat that for older identity services, and are
 * harmless). Only then does the record say revoked (so the link answers `revoked`). A crash in
 * between leaves a pending record whose links no longer sign in; the call is idempotent, so the
 * operator retries it.
 */
export async function revokeInvitation(
  ctx: UsersContext,
  id: string,
  inTransaction?: InvitationHook,
): Promise<Invitation> {
  const invitation = await existing(ctx, id);
  if (invitation.state === 'accepted') throw alreadyAccepted();
  const now = ctx.clock.now();
  await ctx.identityAdmin.patchIdentity(invitation.identityId, [
    { op: 'replace', path: '/state', value: 'inactive' },
  ]);
  await ctx.identityAdmin.endRecoveryFlows(invitation.identityId);
  await ctx.identityAdmin.deleteSessions(invitation.identityId);
  const revoked = await ctx.db.transaction().execute(async (trx) => {
    if (!(await markInvitationRevoked(trx, invitation.id, now))) return false;
    await inTransaction?.(trx, invitation);
    return true;
  });
  if (!revoked) {
    // Accepted while we were revoking: the person onboarded, so give the identity back.
    await ctx.identityAdmin.patchIdentity(invitation.identityId, [
      { op: 'replace', path: '/state', value: 'active' },
    ]);
    throw alreadyAccepted();
  }
  return (await findInvitation(ctx.db, invitation.id, now))!;
}
