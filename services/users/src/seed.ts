import { z } from 'zod';

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

export interface SeedSsoOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface SeedResult {
  organisationId: string;
  users: { email: string; password: string; created: boolean }[];
  sso?: { organisationId: string; provider: string; users: { email: string; created: boolean }[] };
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
export async function seedDemo(adminUrl: string, sso?: SeedSsoOptions): Promise<SeedResult> {
  const base = adminUrl.replace(/\/+$/, '');
  const result = await seedPasswordOrganisation(base);
  if (!sso) return result;
  return { ...result, sso: await seedSsoOrganisation(base, sso) };
}

/**
 * Globex with single sign-on through `sso.issuer`. The provider is set on every start (the
 * stand-in's client secret is new each time); Hopper gets a user-service account without a password.
 */
async function seedSsoOrganisation(
  base: string,
  sso: SeedSsoOptions,
): Promise<NonNullable<SeedResult['sso']>> {
  const list = organisationListSchema.parse(await call(`${base}/admin/organisations`, 'GET'));
  const existing = list.organisations.find((o) => o.domains.includes(DEMO_SSO_ORGANISATION.domains[0]));
  const organisationId =
    existing?.id ??
    organisationSchema.parse(await call(`${base}/admin/organisations`, 'POST', DEMO_SSO_ORGANISATION)).id;
  await call(`${base}/admin/organisations/${organisationId}/sso`, 'PUT', {
    provider: DEMO_SSO_PROVIDER,
    issuer: sso.issuer,
    clientId: sso.clientId,
    clientSecret: sso.clientSecret,
    jit: true,
  });
  const users: { email: string; created: boolean }[] = [];
  for (const user of DEMO_SSO_USERS) {
    users.push({ email: user.email, created: await createDemoUser(base, { ...user, organisationId }) });
  }
  return { organisationId, provider: DEMO_SSO_PROVIDER, users };
}

async function createDemoUser(base: string, body: Record<string, unknown>): Promise<boolean> {
  const res = await fetch(`${base}/admin/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed: unknown = await res.json();
  if (res.status === 409 && errorSchema.safeParse(parsed).data?.errorCode === 'USER_EXISTS') return false;
  if (res.ok) return true;
  throw new Error(`seeding ${String(body.email)} failed: ${res.status} ${JSON.stringify(parsed)}`);
}

async function seedPasswordOrganisation(base: string): Promise<SeedResult> {
  const list = organisationListSchema.parse(await call(`${base}/admin/organisations`, 'GET'));
  const existing = list.organisations.find((o) => o.domains.includes(DEMO_ORGANISATION.domains[0]));
  const organisationId =
    existing?.id ??
    organisationSchema.parse(await call(`${base}/admin/organisations`, 'POST', DEMO_ORGANISATION)).id;

  const users: SeedResult['users'] = [];
  for (const user of DEMO_USERS) {
    const res = await fetch(`${base}/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
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

async function call(url: string, method: 'GET' | 'POST' | 'PUT', body?: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed: unknown = await res.json();
  if (!res.ok) throw new Error(`${method} ${url} failed: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed;
}
