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

const organisationListSchema = z.object({
  organisations: z.array(z.object({ id: z.string(), domains: z.array(z.string()) })),
});
const organisationSchema = z.object({ id: z.string() });
const errorSchema = z.object({ errorCode: z.string(), message: z.string() });

/**
 * Idempotently creates the demo organisation "Acme" and its password users through the user
 * service's admin API (which creates their identities). Existing records are left alone.
 */
export async function seedDemo(adminUrl: string, adminKey?: string): Promise<SeedResult> {
  const base = adminUrl.replace(/\/+$/, '');
  const auth = adminAuthHeaders(adminKey);
  const call = (url: string, method: 'GET' | 'POST', body?: unknown) => send(url, method, auth, body);
  const list = organisationListSchema.parse(await call(`${base}/admin/organisations`, 'GET'));
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
