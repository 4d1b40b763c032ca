import { z } from 'zod';
import { adminAuthHeaders } from '@acme/service-kit/admin-access';

export const DEMO_PASSWORD = 'Research-Demo-2026!';

export const DEMO_ORGANISATION = {
  name: 'Acme',
  domains: ['acme.test'],
  products: ['Platform', 'MAGIC'],
  subscriptionStatus: 'subscribed',
} as const;

export const DEMO_USERS = [
  { email: 'ada@acme.test', firstName: 'Ada', lastName: 'Lovelace', role: 'org-admin' },
  { email: 'grace@acme.test', firstName: 'Grace', lastName: 'Hopper', role: 'member' },
] as const;

/** Organisation Globex signs in through its own identity provider (the stand-in in `dev/`). */
export const DEMO_SSO_ORGANISATION = {
  name: 'Globex',
  domains: ['globex.test'],
  products: ['Platform', 'MAGIC'],
  subscriptionStatus: 'subscribed',
} as const;

export const DEMO_SSO_PROVIDER = 'globex';

/** Has a user-service account; lovelace@globex.test has none and is created at first sign-in. */
export const DEMO_SSO_USERS = [
  { email: 'hopper@globex.test', firstName: 'Grace', lastName: 'Hopper', role: 'member' },
] as const;

/** Organisation Initech signs in through its SAML 2.0 identity provider (the stand-in in `dev/`). */
const DEMO_SAML_ORGANISATION = {
  name: 'Initech',
  domains: ['initech.test'],
  products: ['Platform', 'MAGIC'],
  subscriptionStatus: 'subscribed',
} as const;

const DEMO_SAML_PROVIDER = 'initech';

/** Has a user-service account; peter@initech.test has none and is created at first sign-in (JIT). */
const DEMO_SAML_USERS = [
  { email: 'milton@initech.test', firstName: 'Milton', lastName: 'Waddams', role: 'member' },
] as const;

/** Initech's IdP metadata (the stand-in's entity id, SSO URL and certificate). */
export interface SeedSamlOptions {
  metadataXml: string;
}

export interface SeedSsoOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface SeedResult {
  organisationId: string;
  users: { email: string; password: string; created: boolean }[];
  sso?: { organisationId: string; provider: string; users: { email: string; created: boolean }[] };
  saml?: { organisationId: string; provider: string; users: { email: string; created: boolean }[] };
}

/** The Microsoft 365 tenants of the demo (their ids come from the Entra stand-in's directory). */
export interface DemoM365Tenants {
  contosoTenantId: string;
  fabrikamTenantId: string;
}

/**
 * Demo Microsoft 365 organisations: Contoso (subscribed; Megan is a user, Diego exists only in
 * Entra) and Fabrikam (not subscribed; its Owner Alex buys it on the marketplace stand-in).
 */
export function demoM365Organisations(tenants: DemoM365Tenants) {
  return [
    {
      organisation: {
        name: 'Contoso',
        domains: ['contoso.test'],
        products: ['MAGIC'],
        subscriptionStatus: 'subscribed',
        m365: true,
        m365TenantIds: [tenants.contosoTenantId],
      },
      users: [
        {
          email: 'megan@contoso.test',
          firstName: 'Megan',
          lastName: 'Bowen',
          role: 'member',
          scopeGroups: ['research'],
        },
      ],
    },
    {
      organisation: {
        name: 'Fabrikam',
        domains: ['fabrikam.test'],
        products: ['MAGIC'],
        subscriptionStatus: 'not_subscribed',
        m365: true,
        m365TenantIds: [tenants.fabrikamTenantId],
      },
      users: [],
    },
  ];
}

const organisationListSchema = z.object({
  organisations: z.array(z.object({ id: z.string(), domains: z.array(z.string()) })),
});
const organisationSchema = z.object({ id: z.string() });
const errorSchema = z.object({ errorCode: z.string(), message: z.string() });

/**
 * Idempotently creates the demo organisation "Acme" and its password users through the user
 * service's admin API (which creates their identities). Existing records are left alone.
 */
export async function seedDemo(
  adminUrl: string,
  adminKey?: string,
  options: { m365?: DemoM365Tenants; sso?: SeedSsoOptions; saml?: SeedSamlOptions } = {},
): Promise<SeedResult> {
  const result = await seedPasswordAndM365(adminUrl, adminKey, options.m365);
  const base = adminUrl.replace(/\/+$/, '');
  const auth = adminAuthHeaders(adminKey);
  return {
    ...result,
    ...(options.sso ? { sso: await seedSsoOrganisation(base, auth, options.sso) } : {}),
    ...(options.saml ? { saml: await seedSamlOrganisation(base, auth, options.saml) } : {}),
  };
}

/** The demo organisation with `domain`, created when missing; returns its id. */
async function demoOrganisation(
  base: string,
  auth: Record<string, string>,
  organisation: { domains: readonly string[] },
): Promise<string> {
  const list = organisationListSchema.parse(await send(`${base}/admin/organisations`, 'GET', auth));
  const existing = list.organisations.find((o) => o.domains.includes(organisation.domains[0]!));
  return (
    existing?.id ??
    organisationSchema.parse(await send(`${base}/admin/organisations`, 'POST', auth, organisation)).id
  );
}

/** Creates the organisation's listed users that are missing (no password: they sign in by SSO). */
async function seedMembers(
  base: string,
  auth: Record<string, string>,
  organisationId: string,
  members: readonly { email: string }[],
): Promise<{ email: string; created: boolean }[]> {
  const users: { email: string; created: boolean }[] = [];
  for (const user of members) {
    users.push({
      email: user.email,
      created: await createIfMissing(base, auth, { ...user, organisationId }),
    });
  }
  return users;
}

/**
 * Initech with SAML single sign-on through the IdP stand-in, whose metadata is given (not fetched,
 * so the seed does not wait for the stand-in). Milton gets a user-service account without a password.
 */
async function seedSamlOrganisation(
  base: string,
  auth: Record<string, string>,
  saml: SeedSamlOptions,
): Promise<NonNullable<SeedResult['saml']>> {
  const organisationId = await demoOrganisation(base, auth, DEMO_SAML_ORGANISATION);
  await send(`${base}/admin/organisations/${organisationId}/sso`, 'PUT', auth, {
    protocol: 'saml',
    provider: DEMO_SAML_PROVIDER,
    metadataXml: saml.metadataXml,
    jit: true,
  });
  const users = await seedMembers(base, auth, organisationId, DEMO_SAML_USERS);
  return { organisationId, provider: DEMO_SAML_PROVIDER, users };
}

/**
 * Globex with single sign-on through `sso.issuer`. The provider is set on every start (the
 * stand-in's client secret is new each time); Hopper gets a user-service account without a password.
 */
async function seedSsoOrganisation(
  base: string,
  auth: Record<string, string>,
  sso: SeedSsoOptions,
): Promise<NonNullable<SeedResult['sso']>> {
  const organisationId = await demoOrganisation(base, auth, DEMO_SSO_ORGANISATION);
  await send(`${base}/admin/organisations/${organisationId}/sso`, 'PUT', auth, {
    provider: DEMO_SSO_PROVIDER,
    issuer: sso.issuer,
    clientId: sso.clientId,
    clientSecret: sso.clientSecret,
    jit: true,
  });
  const users = await seedMembers(base, auth, organisationId, DEMO_SSO_USERS);
  return { organisationId, provider: DEMO_SSO_PROVIDER, users };
}

async function seedPasswordAndM365(
  adminUrl: string,
  adminKey: string | undefined,
  m365: DemoM365Tenants | undefined,
): Promise<SeedResult> {
  const options = { m365 };
  const base = adminUrl.replace(/\/+$/, '');
  const auth = adminAuthHeaders(adminKey);
  const call = (url: string, method: 'GET' | 'POST', body?: unknown) => send(url, method, auth, body);
  const list = organisationListSchema.parse(await call(`${base}/admin/organisations`, 'GET'));
  if (options.m365) {
    for (const entry of demoM365Organisations(options.m365)) {
      const found = list.organisations.find((o) => o.domains.includes(entry.organisation.domains[0]!));
      const id =
        found?.id ??
        organisationSchema.parse(await call(`${base}/admin/organisations`, 'POST', entry.organisation)).id;
      for (const user of entry.users) await createIfMissing(base, auth, { ...user, organisationId: id });
    }
  }
  const existing = list.organisations.find((o) => o.domains.includes(DEMO_ORGANISATION.domains[0]));
  const organisationId =
    existing?.id ??
    organisationSchema.parse(await call(`${base}/admin/organisations`, 'POST', DEMO_ORGANISATION)).id;

  const users: SeedResult['users'] = [];
  for (const user of DEMO_USERS) {
    const res = await fetch(`${base}/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth },
      body: JSON.stringify({ ...user, organisationId, password: DEMO_PASSWORD }),
    });
    const body: unknown = await res.json();
    if (res.status === 409 && errorSchema.safeParse(body).data?.errorCode === 'USER_EXISTS') {
      users.push({ email: user.email, password: DEMO_PASSWORD, created: false });
    } else if (res.ok) {
      users.push({ email: user.email, password: DEMO_PASSWORD, created: true });
    } else {
      throw new Error(`seeding ${user.email} failed: ${res.status} ${JSON.stringify(body)}`);
    }
  }
  return { organisationId, users };
}

/** Creates a user without a password (they sign in with Microsoft); an existing one is kept. */
async function createIfMissing(
  base: string,
  auth: Record<string, string>,
  user: Record<string, unknown>,
): Promise<boolean> {
  const res = await fetch(`${base}/admin/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify(user),
  });
  const body: unknown = await res.json();
  if (res.ok) return true;
  if (res.status === 409 && errorSchema.safeParse(body).data?.errorCode === 'USER_EXISTS') return false;
  throw new Error(`seeding ${String(user.email)} failed: ${res.status} ${JSON.stringify(body)}`);
}

async function send(
  url: string,
  method: 'GET' | 'POST' | 'PUT',
  auth: Record<string, string>,
  body?: unknown,
): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: unknown = await res.json();
  if (!res.ok) throw new Error(`${method} ${url} failed: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}
