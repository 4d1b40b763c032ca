import type { Kysely } from 'kysely';
import type { UsersContext } from '../context.ts';
import type { UsersDb } from '../db-types.ts';
import { operatorOrigin, personOrigin, recordEvent, type EventOrigin } from '../events/events.ts';
import { AppError } from '../http/errors.ts';
import { domainOf } from '../http/schemas.ts';
import { createUser } from '../users/create-user.ts';

/**
 * Organisation self sign-up (issue 25). Registration is off unless an organisation opens it for its
 * domains; a person whose address is in such a domain may then create their own account, and joins
 * that organisation as a member (unverified address, terms not yet accepted, the usual 2FA grace).
 */

interface SignUpFacts {
  id: string;
  self_signup: boolean;
  /** The organisation's SSO provider enforces SSO (no password accounts for its domains). */
  sso_enforced: boolean;
  /** The organisation's directory provisions it (SCIM: at least one live SCIM token, issue 26). */
  scim_enabled: boolean;
}

/**
 * Why an organisation may not have self sign-up, or undefined when it may. The one place where this
 * is decided: an organisation that enforces SSO signs its people in through its own provider, and one
 * provisioned by SCIM creates its accounts from its directory.
 */
function selfSignUpBlockedBy(
  org: Pick<SignUpFacts, 'sso_enforced' | 'scim_enabled'>,
): 'sso' | 'scim' | undefined {
  if (org.sso_enforced) return 'sso';
  if (org.scim_enabled) return 'scim';
  return undefined;
}

function factsQuery(db: Kysely<UsersDb>) {
  return db
    .selectFrom('organisations as o')
    .leftJoin('sso_providers as p', 'p.organisation_id', 'o.id')
    .select(['o.id as id', 'o.self_signup as self_signup'])
    .select((eb) => eb.fn.coalesce('p.enforce', eb.lit(false)).as('sso_enforced'))
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('scim_tokens as t')
            .select('t.id')
            .whereRef('t.organisation_id', '=', 'o.id')
            .where('t.revoked_at', 'is', null),
        )
        .$castTo<boolean>()
        .as('scim_enabled'),
    );
}

async function factsOf(db: Kysely<UsersDb>, organisationId: string): Promise<SignUpFacts> {
  const found = await factsQuery(db).where('o.id', '=', organisationId).executeTakeFirst();
  if (!found) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  return found;
}

const blockedMessage = {
  sso: 'This organisation enforces single sign-on: its people sign in through its identity provider, so self sign-up can not be turned on.',
  scim: 'This organisation is provisioned by SCIM: its directory creates its accounts, so self sign-up can not be turned on.',
} as const;

/**
 * The one way the setting changes: the operator's (CLI `org:self-signup`, admin API; the default
 * origin) and the organisation admin's (console, with the admin as the event's actor). Turning it on
 * is refused where it is blocked; the refusal's `reason` (`sso`, `scim`) lets the console explain it.
 */
export async function setSelfSignUp(
  ctx: UsersContext,
  organisationId: string,
  enabled: boolean,
  origin: EventOrigin = operatorOrigin(),
): Promise<{ organisationId: string; enabled: boolean }> {
  const facts = await factsOf(ctx.db, organisationId);
  const blocked = selfSignUpBlockedBy(facts);
  if (enabled && blocked) {
    throw new AppError('SELF_SIGNUP_NOT_ALLOWED', blockedMessage[blocked], {}, { reason: blocked });
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    // The row locked: of parallel saves, only the one that changes the setting records an event.
    const before = await trx
      .selectFrom('organisations')
      .select('self_signup')
      .where('id', '=', organisationId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('organisations')
      .set({ self_signup: enabled })
      .where('id', '=', organisationId)
      .execute();
    if (before.self_signup !== enabled) {
      await recordEvent(
        trx,
        origin,
        {
          organisationId,
          type: 'organisation.self_signup_changed',
          subjectId: null,
          details: { enabled: String(enabled) },
        },
        now,
      );
    }
  });
  return { organisationId, enabled };
}

export async function getSelfSignUp(
  ctx: UsersContext,
  organisationId: string,
): Promise<{ organisationId: string; enabled: boolean }> {
  const facts = await factsOf(ctx.db, organisationId);
  return { organisationId, enabled: facts.self_signup && !selfSignUpBlockedBy(facts) };
}

/**
 * The console's view: the setting, the domains it applies to, and why it can not be turned on
 * (null when it can).
 */
export async function consoleSelfSignUp(
  ctx: UsersContext,
  organisationId: string,
): Promise<{ enabled: boolean; domains: string[]; blockedBy: 'sso' | 'scim' | null }> {
  const facts = await factsOf(ctx.db, organisationId);
  const domains = await ctx.db
    .selectFrom('organisation_domains')
    .select('domain')
    .where('organisation_id', '=', organisationId)
    .orderBy('domain')
    .execute();
  const blockedBy = selfSignUpBlockedBy(facts) ?? null;
  return {
    enabled: facts.self_signup && blockedBy === null,
    domains: domains.map((d) => d.domain),
    blockedBy,
  };
}

/** Whether a domain's organisation has self sign-up open now (false for unknown domains). */
export async function domainAllowsSignUp(db: Kysely<UsersDb>, domain: string): Promise<boolean> {
  const facts = await factsQuery(db)
    .innerJoin('organisation_domains as d', 'd.organisation_id', 'o.id')
    .where('d.domain', '=', domain.toLowerCase())
    .executeTakeFirst();
  return !!facts && facts.self_signup && !selfSignUpBlockedBy(facts);
}

/** Whether any organisation has self sign-up open (else registration flows answer "disabled"). */
export async function anySignUpOpen(db: Kysely<UsersDb>): Promise<boolean> {
  const rows = await factsQuery(db).where('o.self_signup', '=', true).execute();
  return rows.some((facts) => !selfSignUpBlockedBy(facts));
}

/**
 * A person signs themselves up. The same refusal for every address outside an open organisation
 * (unknown domain, sign-up closed, SSO enforced), so the answer says nothing about other
 * organisations. The account is created through the one creation path (`createUser`): the address
 * unverified, the terms not accepted, the 2FA grace period from now. A duplicate is USER_EXISTS.
 */
export async function signUpMember(
  ctx: UsersContext,
  person: { email: string; firstName: string; lastName: string; password: string },
  ip: string | null,
): Promise<{ userId: string; identityId: string; organisationId: string }> {
  const facts = await factsQuery(ctx.db)
    .innerJoin('organisation_domains as d', 'd.organisation_id', 'o.id')
    .where('d.domain', '=', domainOf(person.email))
    .executeTakeFirst();
  if (!facts || !facts.self_signup || selfSignUpBlockedBy(facts)) {
    throw new AppError('SELF_SIGNUP_NOT_ALLOWED', 'Self sign-up is not open for this address.');
  }
  const user = await createUser(
    ctx,
    {
      organisationId: facts.id,
      email: person.email,
      firstName: person.firstName,
      lastName: person.lastName,
      role: 'member',
      password: person.password,
      isGitUser: false,
      scopeGroups: [],
    },
    { emailVerified: false, operatorAcceptsTerms: false },
  );
  await recordEvent(
    ctx.db,
    personOrigin(user.id, ip),
    { organisationId: facts.id, type: 'member.joined', subjectId: user.id, details: { via: 'self_sign_up' } },
    ctx.clock.now(),
  );
  return { userId: user.id, identityId: user.identityId!, organisationId: facts.id };
}
