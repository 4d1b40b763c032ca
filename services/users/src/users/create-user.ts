import { randomUUID } from 'node:crypto';
import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { domainOf } from '../http/schemas.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { recordOperatorAcceptance } from '../terms/repository.ts';
import {
  deleteUnlinkedUser,
  deleteUser,
  findUser,
  findUserRowByEmail,
  insertUser,
  linkIdentity,
} from './repository.ts';
import type { NewUserRow } from './repository.ts';
import type { CreateUserInput, User } from './schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a user and their identity without leaving half-written records:
 * 1. insert the user row (this reserves the email: a duplicate is USER_EXISTS before anything else happens);
 * 2. create the identity, whose `userServiceID` is the new user's id;
 * 3. link the identity to the row.
 * If step 2 fails the row is deleted; if step 3 fails the identity and the row are both removed.
 * A process killed between 1 and 3 leaves an unlinked row; the next creation for that email
 * repairs it (see `reserveEmail`), so the operation can always be retried.
 */
export interface CreateUserOptions {
  /** Whether the identity's address starts verified (true: the operator vouches for it). */
  emailVerified?: boolean;
  /**
   * Whether the operator accepts the current terms for the person (default: when a password is
   * given). Self sign-up gives a password but the person accepts the terms themselves.
   */
  operatorAcceptsTerms?: boolean;
}

export async function createUser(
  ctx: UsersContext,
  input: CreateUserInput,
  options: CreateUserOptions = {},
): Promise<User> {
  const organisation = await findOrganisation(ctx.db, input.organisationId);
  if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  if (!organisation.domains.includes(domainOf(input.email))) {
    throw new AppError(
      'EMAIL_DOMAIN_MISMATCH',
      "The email address's domain does not belong to the organisation.",
    );
  }

  const now = ctx.clock.now();
  const id = randomUUID();
  const operatorAcceptsTerms = options.operatorAcceptsTerms ?? input.password !== undefined;
  await reserveEmail(ctx, {
    id,
    organisationId: organisation.id,
    email: input.email,
    firstName: input.firstName,
    lastName: input.lastName,
    role: input.role,
    scopeGroups: input.scopeGroups,
    createdAt: now,
  });

  let identityId: string;
  try {
    const identity = await ctx.identityAdmin.createIdentity({
      traits: {
        userServiceID: id,
        email: input.email,
        name: { first: input.firstName, last: input.lastName },
        onboarding: {
          isGitUser: input.isGitUser,
          mfaSetupDeadline: new Date(now.getTime() + ctx.config.mfaGraceDays * DAY_MS).toISOString(),
          gitProviderConnected: false,
          tosAccepted: operatorAcceptsTerms,
        },
      },
      password: input.password,
      emailVerified: options.emailVerified ?? true,
    });
    identityId = identity.id;
  } catch (error) {
    // A time-out or 5xx may hide an identity that was created after all: remove it too.
    if (error instanceof AppError && error.errorCode === 'UPSTREAM_ERROR') {
      await removeIdentitiesOf(ctx, input.email, id).catch(() => undefined);
    }
    await deleteUser(ctx.db, id);
    throw error;
  }

  try {
    await linkIdentity(ctx.db, id, identityId);
    // A user given a password skips onboarding: the operator accepted the current terms for them.
    if (operatorAcceptsTerms) await recordOperatorAcceptance(ctx, id, now);
  } catch (error) {
    await ctx.identityAdmin.deleteIdentity(identityId).catch(() => undefined);
    await deleteUser(ctx.db, id).catch(() => undefined);
    throw error;
  }

  const user = await findUser(ctx.db, id);
  if (!user) throw new Error('user vanished after insert');
  return user;
}

/** How long an unlinked row may be a creation still in flight before it counts as an orphan. */
const ORPHAN_AFTER_MS = 60_000;

/**
 * Inserts the user row. When the email is taken by a row that is still unlinked long after its
 * creation began (the process died mid-way), the orphan is repaired first: linked to the identity
 * that was created for it, if there is one (then the user exists: 409), or removed so that this
 * creation proceeds.
 */
async function reserveEmail(ctx: UsersContext, row: NewUserRow): Promise<void> {
  try {
    await insertUser(ctx.db, row);
    return;
  } catch (error) {
    if (!(error instanceof AppError) || error.errorCode !== 'USER_EXISTS') throw error;
    const existing = await findUserRowByEmail(ctx.db, row.email);
    const orphan =
      existing !== undefined &&
      existing.identity_id === null &&
      row.createdAt.getTime() - existing.created_at.getTime() >= ORPHAN_AFTER_MS;
    if (!orphan) throw error;
    const identities = await ctx.identityAdmin.findIdentitiesByEmail(row.email);
    const own = identities.find((identity) => identity.userServiceID === existing.id);
    if (own) {
      await linkIdentity(ctx.db, existing.id, own.id);
      throw error;
    }
    await deleteUnlinkedUser(ctx.db, existing.id);
    await insertUser(ctx.db, row);
  }
}

/** Undoes a creation: the identity, then the user row (and what cascades from it). */
export async function removeUserAndIdentity(
  ctx: UsersContext,
  userId: string,
  identityId: string,
): Promise<void> {
  await ctx.identityAdmin.deleteIdentity(identityId);
  await deleteUser(ctx.db, userId);
}

async function removeIdentitiesOf(ctx: UsersContext, email: string, userId: string): Promise<void> {
  const identities = await ctx.identityAdmin.findIdentitiesByEmail(email);
  for (const identity of identities) {
    if (identity.userServiceID === userId) await ctx.identityAdmin.deleteIdentity(identity.id);
  }
}
