import type { UsersContext } from '../context.ts';
import { AppError } from '../http/errors.ts';
import { domainOf, uuidSchema } from '../http/schemas.ts';
import { findOrganisation } from '../organisations/repository.ts';
import { createUser } from '../users/create-user.ts';
import { findUser, findUserRowByEmail } from '../users/repository.ts';
import {
  deleteProvider,
  findProviderById,
  findDomainPolicy,
  findIdentityPolicy,
  findProviderByOrganisation,
  setBreakGlassUser,
  upsertProvider,
  type SsoProviderRow,
} from './repository.ts';
import { operatorOrigin, recordEvent, systemOrigin, type EventOrigin } from '../events/events.ts';
import { scimEnabled } from '../directory/tokens.ts';
import { decideDirectoryGrants, readGroupMappings } from '../directory/settings.ts';
import { samlFacts, samlSettingsOf, serviceProviderUrls } from './saml-provider.ts';
import type {
  SetOidcProviderInput,
  SetSamlProviderInput,
  SsoProvider,
  SsoProviderConfig,
} from './schemas.ts';

function toView(ctx: UsersContext, row: SsoProviderRow): SsoProvider {
  const common = {
    provider: row.provider_id,
    organisationId: row.organisation_id,
    jit: row.jit,
    enforce: row.enforce,
    breakGlassUserId: row.break_glass_user_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
  if (row.protocol === 'saml') {
    return {
      ...common,
      protocol: 'saml',
      saml: samlFacts(row.saml),
      serviceProvider: serviceProviderUrls(ctx.config.identityPublicUrl, row.provider_id),
    };
  }
  return {
    ...common,
    protocol: 'oidc',
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecretSet: true,
    scopes: row.scopes,
    claimMapping: row.claim_mapping,
    userinfo: row.userinfo,
  };
}

async function organisationOrThrow(ctx: UsersContext, organisationId: string) {
  const organisation = await findOrganisation(ctx.db, organisationId);
  if (!organisation) throw new AppError('ORGANISATION_NOT_FOUND', 'No organisation has this id.');
  return organisation;
}

/** The provider id an organisation gets when none is named: its first domain's first label. */
export function defaultProviderId(organisation: { domains: string[] }): string {
  return organisation.domains[0]!.split('.')[0]!.slice(0, 63);
}

type OidcInput = Omit<SetOidcProviderInput, 'clientSecret'> & { clientSecret?: string | undefined };

/**
 * Sets the organisation's provider, for the operator (admin API, CLI) and the organisation console
 * alike. Without `clientSecret` (the console's form left it empty) the stored secret stays, as long
 * as the provider id does. A SAML provider's metadata is fetched (URL) or taken as given, and parsed.
 */
export async function setSsoProvider(
  ctx: UsersContext,
  organisationId: string,
  input: OidcInput | SetSamlProviderInput,
  origin: EventOrigin = operatorOrigin(),
): Promise<SsoProvider> {
  const organisation = await organisationOrThrow(ctx, organisationId);
  const existing = await findProviderByOrganisation(ctx.db, organisationId);
  const providerId = input.provider ?? existing?.provider_id ?? defaultProviderId(organisation);
  const now = ctx.clock.now();
  const kept = {
    provider_id: providerId,
    organisation_id: organisationId,
    jit: input.jit,
    enforce: input.enforce ?? existing?.enforce ?? false,
    break_glass_user_id: existing?.break_glass_user_id ?? null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  let row: SsoProviderRow;
  if (input.protocol === 'saml') {
    const saml = await samlSettingsOf(ctx, input);
    row = {
      ...kept,
      protocol: 'saml',
      issuer: saml.entityId,
      client_id: null,
      client_secret_enc: null,
      scopes: null,
      claim_mapping: null,
      userinfo: null,
      saml,
    };
  } else {
    const keptSecret =
      existing?.protocol === 'oidc' && existing.provider_id === providerId
        ? existing.client_secret_enc
        : undefined;
    if (input.clientSecret === undefined && keptSecret === undefined) {
      throw new AppError('INVALID_REQUEST', 'The request is invalid: clientSecret: is required');
    }
    row = {
      ...kept,
      protocol: 'oidc',
      issuer: input.issuer.replace(/\/+$/, ''),
      client_id: input.clientId,
      client_secret_enc:
        input.clientSecret === undefined ? keptSecret! : ctx.secretBox.seal(input.clientSecret, providerId),
      scopes: input.scopes,
      claim_mapping: input.claimMapping,
      userinfo: input.userinfo,
      saml: null,
    };
  }
  await upsertProvider(ctx.db, row, (trx) =>
    recordEvent(
      trx,
      origin,
      {
        organisationId,
        type: 'sso.provider_changed',
        subjectId: null,
        // Names and switches only: never the secret, nor whether it changed; no certificates.
        details: {
          change: existing ? 'updated' : 'set',
          protocol: row.protocol,
          ...(row.protocol === 'saml'
            ? { entityId: row.issuer, metadataSource: row.saml.metadataUrl === null ? 'xml' : 'url' }
            : { issuer: row.issuer, clientId: row.client_id }),
          jit: String(row.jit),
          enforce: String(row.enforce),
        },
      },
      now,
    ),
  );
  // Links are keyed by the provider record (organisation + issuer or entity id): a new issuer is a
  // new record, and the old record's links go with it.
  if (existing && existing.issuer !== row.issuer) {
    await ctx.identityAdmin.removeOidcLinks(organisationId, existing.issuer);
  }
  return toView(ctx, row);
}

export async function getSsoProvider(ctx: UsersContext, organisationId: string): Promise<SsoProvider> {
  await organisationOrThrow(ctx, organisationId);
  const row = await findProviderByOrganisation(ctx.db, organisationId);
  if (!row) throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
  return toView(ctx, row);
}

export async function removeSsoProvider(
  ctx: UsersContext,
  organisationId: string,
  origin: EventOrigin = operatorOrigin(),
): Promise<void> {
  await organisationOrThrow(ctx, organisationId);
  const row = await findProviderByOrganisation(ctx.db, organisationId);
  if (!row) throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
  // The links die with the provider, first, so a failure (502) leaves the provider for the operator
  // to remove again. A link made in between can sign no one in once the provider is gone: links are
  // keyed by organisation and issuer, never by the provider id another organisation may take.
  await ctx.identityAdmin.removeOidcLinks(organisationId, row.issuer);
  await deleteProvider(ctx.db, organisationId, (trx) =>
    recordEvent(
      trx,
      origin,
      {
        organisationId,
        type: 'sso.provider_changed',
        subjectId: null,
        details: { change: 'removed', protocol: row.protocol, issuer: row.issuer },
      },
      ctx.clock.now(),
    ),
  );
}

/**
 * Names the organisation's break-glass org-admin: the one person exempt from `enforce`, for when the
 * organisation's identity provider is down. Only an org-admin of that organisation can be named.
 */
export async function setBreakGlass(
  ctx: UsersContext,
  organisationId: string,
  userId: string | null,
): Promise<SsoProvider> {
  await organisationOrThrow(ctx, organisationId);
  if (userId !== null) {
    const user = await findUser(ctx.db, userId);
    if (!user || user.organisationId !== organisationId || user.role !== 'org-admin') {
      throw new AppError(
        'SSO_BREAK_GLASS_NOT_ORG_ADMIN',
        "The break-glass user must be an org-admin of the provider's organisation.",
      );
    }
  }
  if (!(await setBreakGlassUser(ctx.db, organisationId, userId, ctx.clock.now()))) {
    throw new AppError('SSO_NOT_CONFIGURED', 'This organisation has no single sign-on provider.');
  }
  return getSsoProvider(ctx, organisationId);
}

/**
 * A domain's SSO policy for the identity service: whether its organisation enforces SSO, and the
 * break-glass address exempt from it (while that user is still an org-admin there). Every domain
 * gets an answer of the same shape, known or not, and nothing about any other address.
 */
export async function domainPolicy(
  ctx: UsersContext,
  domain: string,
): Promise<{ enforced: boolean; exemptEmails: string[] }> {
  const found = await findDomainPolicy(ctx.db, domain.toLowerCase());
  if (!found?.enforce) return { enforced: false, exemptEmails: [] };
  return { enforced: true, exemptEmails: found.breakGlassEmail ? [found.breakGlassEmail] : [] };
}

/**
 * Issue 31, item 4: whether the person an identity belongs to must sign in through their
 * organisation's provider. Decided by the organisation they are a member of (looked up by identity
 * id), never by an address they could change: a member of an organisation that enforces SSO, other
 * than its break-glass org-admin. The identity service asks it before a password or passkey signs
 * in and before an address, password or passkey is changed; token claims ask it for every session
 * that did not come from the provider.
 */
export async function identityPolicy(ctx: UsersContext, identityId: string): Promise<{ enforced: boolean }> {
  if (!uuidSchema.safeParse(identityId).success) return { enforced: false };
  const found = await findIdentityPolicy(ctx.db, identityId);
  return { enforced: !!found?.enforce && !found.breakGlass };
}

/** The relying-party configuration the identity service needs, secret included (OIDC). */
export async function providerConfig(ctx: UsersContext, providerId: string): Promise<SsoProviderConfig> {
  const row = await findProviderById(ctx.db, providerId);
  if (!row) throw new AppError('SSO_NOT_CONFIGURED', 'No single sign-on provider has this id.');
  const organisation = await organisationOrThrow(ctx, row.organisation_id);
  if (row.protocol === 'saml') {
    return {
      protocol: 'saml',
      provider: row.provider_id,
      organisationId: row.organisation_id,
      jit: row.jit,
      domains: organisation.domains,
      saml: {
        idpEntityId: row.saml.entityId,
        ssoUrl: row.saml.ssoUrl,
        certificates: row.saml.certificates,
        allowIdpInitiated: row.saml.allowIdpInitiated,
        attributes: row.saml.attributes,
      },
    };
  }
  return {
    protocol: 'oidc',
    provider: row.provider_id,
    organisationId: row.organisation_id,
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: ctx.secretBox.open(row.client_secret_enc, row.provider_id),
    scopes: row.scopes,
    claimMapping: row.claim_mapping,
    jit: row.jit,
    userinfo: row.userinfo,
    domains: organisation.domains,
  };
}

/**
 * A person the organisation's provider vouched for signs in for the first time: they become a
 * member of the organisation owning the provider, with a verified identity and no password.
 * An existing user of that organisation is answered as is (the identity service then links it).
 */
export async function provisionSsoMember(
  ctx: UsersContext,
  providerId: string,
  person: {
    email: string;
    firstName?: string | undefined;
    lastName?: string | undefined;
    groups?: string[] | undefined;
  },
): Promise<{ userId: string; identityId: string }> {
  const row = await findProviderById(ctx.db, providerId);
  if (!row) throw new AppError('SSO_NOT_CONFIGURED', 'No single sign-on provider has this id.');
  const organisation = await organisationOrThrow(ctx, row.organisation_id);
  if (!organisation.domains.includes(domainOf(person.email))) {
    throw new AppError(
      'EMAIL_DOMAIN_MISMATCH',
      "The email address's domain does not belong to the provider's organisation.",
    );
  }
  const existing = await findUserRowByEmail(ctx.db, person.email);
  if (existing) {
    if (existing.organisation_id !== organisation.id) {
      // Never a link across organisations (a domain that moved, a provider id taken over).
      throw new AppError(
        'SSO_ORGANISATION_MISMATCH',
        'This account belongs to another organisation than the one whose identity provider answered. Contact your administrator.',
      );
    }
    if (existing.identity_id === null) {
      throw new AppError('USER_EXISTS', 'A user with this email address already exists.');
    }
    await applyAssertedGroups(ctx, organisation.id, existing, person.groups);
    return { userId: existing.id, identityId: existing.identity_id };
  }
  if (await scimEnabled(ctx, organisation.id)) {
    // Issue 26: while the directory provisions the organisation (SCIM), it alone creates accounts.
    throw new AppError(
      'JIT_DISABLED',
      "Your organisation's directory creates accounts. Ask your administrator to give you access to this application.",
    );
  }
  if (!row.jit) {
    throw new AppError(
      'JIT_DISABLED',
      'Your organisation does not create accounts at first sign-in. Ask your administrator to add you.',
    );
  }
  const grants = await assertedGrants(ctx, organisation.id, person.groups);
  const local = person.email.slice(0, person.email.indexOf('@'));
  const user = await createUser(
    ctx,
    {
      organisationId: organisation.id,
      email: person.email,
      firstName: person.firstName ?? local.slice(0, 100),
      lastName: person.lastName ?? organisation.name.slice(0, 100),
      role: grants?.role ?? 'member',
      isGitUser: false,
      scopeGroups: grants?.scopeGroups ?? [],
    },
    { emailVerified: true },
  );
  return { userId: user.id, identityId: user.identityId! };
}

/**
 * Issue 26: the groups a SAML provider asserts (its groups attribute) grant a role and scope groups
 * through the organisation's directory group mapping (the console's Provisioning page), as SCIM's
 * groups do, at most org-admin. While SCIM is on, its groups decide and the assertion's count for
 * nothing; without a mapping, or without the attribute, nothing changes.
 */
async function assertedGrants(ctx: UsersContext, organisationId: string, groups: string[] | undefined) {
  if (groups === undefined || (await scimEnabled(ctx, organisationId))) return undefined;
  const mappings = await readGroupMappings(ctx.db, organisationId);
  return mappings.length === 0 ? undefined : decideDirectoryGrants(mappings, groups);
}

/** At each SAML sign-in, an existing member's role and scope groups follow the asserted groups. */
async function applyAssertedGroups(
  ctx: UsersContext,
  organisationId: string,
  member: { id: string; role: string; scope_groups: string[] },
  groups: string[] | undefined,
): Promise<void> {
  // Provider staff are never changed by an organisation's provider.
  if (member.role === 'admin' || member.role === 'super-admin') return;
  const grants = await assertedGrants(ctx, organisationId, groups);
  if (!grants) return;
  const change: { role?: string; scope_groups?: string } = {};
  if (grants.role !== null && grants.role !== member.role) change.role = grants.role;
  const held = [...member.scope_groups].sort();
  if (grants.scopeGroups !== null && JSON.stringify(grants.scopeGroups) !== JSON.stringify(held)) {
    change.scope_groups = JSON.stringify(grants.scopeGroups);
  }
  if (Object.keys(change).length === 0) return;
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set(change).where('id', '=', member.id).execute();
    if (change.role !== undefined) {
      await recordEvent(
        trx,
        systemOrigin(),
        {
          organisationId,
          type: 'member.role_changed',
          subjectId: member.id,
          details: { from: member.role, to: change.role, source: 'saml' },
        },
        now,
      );
    }
  });
}
