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

export interface SeedResult {
  organisationId: string;
  users: { email: string; password: string; created: boolean }[];
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
  options: { m365?: DemoM365Tenants } = {},
): Promise<SeedResult> {
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
): Promise<void> {
  const res = await fetch(`${base}/admin/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify(user),
  });
  const body: unknown = await res.json();
  if (res.ok) return;
  if (res.status === 409 && errorSchema.safeParse(body).data?.errorCode === 'USER_EXISTS') return;
  throw new Error(`seeding ${String(user.email)} failed: ${res.status} ${JSON.stringify(body)}`);
}

async function send(
  url: string,
  method: 'GET' | 'POST',
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
