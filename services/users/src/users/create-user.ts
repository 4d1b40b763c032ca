import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { AppError } from '../http/errors.ts';
import { domainOf } from '../http/schemas.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { deleteUser, findUser, insertUser, linkIdentity } from './repository.ts';
import type { CreateUserInput, User } from './schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates a user and their identity without leaving half-written records:
 * 1. insert the user row (this reserves the email: a duplicate is USER_EXISTS before anything else happens);
 * 2. create the identity, whose `userServiceID` is the new user's id;
 * 3. link the identity to the row.
 * If step 2 fails the row is deleted; if step 3 fails the identity and the row are both removed.
 */
export async function createUser(deps: Deps, input: CreateUserInput): Promise<User> {
  const organisation = await findOrganisation(deps.db, input.organisationId);
  if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  if (!organisation.domains.includes(domainOf(input.email))) {
    throw new AppError(
      'EMAIL_DOMAIN_MISMATCH',
      "The email address's domain does not belong to the organisation.",
    );
  }

  const now = deps.clock.now();
  const id = randomUUID();
  await insertUser(deps.db, {
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
    const identity = await deps.identityAdmin.createIdentity({
      traits: {
        userServiceID: id,
        email: input.email,
        name: { first: input.firstName, last: input.lastName },
        onboarding: {
          isGitUser: false,
          mfaSetupDeadline: new Date(now.getTime() + deps.config.mfaGraceDays * DAY_MS).toISOString(),
          gitProviderConnected: false,
          tosAccepted: input.password !== undefined,
        },
      },
      password: input.password,
    });
    identityId = identity.id;
  } catch (error) {
    await deleteUser(deps.db, id);
    throw error;
  }

  try {
    await linkIdentity(deps.db, id, identityId);
  } catch (error) {
    await deps.identityAdmin.deleteIdentity(identityId).catch(() => undefined);
    await deleteUser(deps.db, id).catch(() => undefined);
    throw error;
  }

  const user = await findUser(deps.db, id);
  if (!user) throw new Error('user vanished after insert');
  return user;
}
