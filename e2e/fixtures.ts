import { randomBytes } from 'node:crypto';
import type { SystemUrls } from './browser.ts';

export interface TestUser {
  id: string;
  identityId: string;
  email: string;
  password: string;
}

async function adminJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...init?.headers },
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${res.status} ${body}`);
  return JSON.parse(body) as T;
}

let acmeId: string | undefined;

async function acme(urls: SystemUrls): Promise<string> {
  if (acmeId) return acmeId;
  const { organisations } = await adminJson<{ organisations: { id: string; name: string }[] }>(
    `${urls.usersAdmin}/admin/organisations`,
  );
  const found = organisations.find((o) => o.name === 'Acme');
  if (!found) throw new Error('the demo organisation Acme was not seeded');
  acmeId = found.id;
  return acmeId;
}

/** A fresh password user of the demo organisation, made through the user service's admin API. */
export async function createUser(
  urls: SystemUrls,
  overrides: Partial<{ role: string }> = {},
): Promise<TestUser> {
  const email = `e2e-${randomBytes(5).toString('hex')}@acme.test`;
  const password = `Journey-${randomBytes(6).toString('hex')}!1`;
  const user = await adminJson<{ id: string; identityId: string }>(`${urls.usersAdmin}/admin/users`, {
    method: 'POST',
    body: JSON.stringify({
      organisationId: await acme(urls),
      email,
      firstName: 'Test',
      lastName: 'Journey',
      role: overrides.role ?? 'member',
      password,
    }),
  });
  return { id: user.id, identityId: user.identityId, email, password };
}
