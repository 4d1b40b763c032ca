import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createIdentityAdminClient, type IdentityAdminClient } from '@acme/identity-contract/admin-client';
import type { SystemUrls } from './browser.ts';
import { newestMail } from './mailbox.ts';

export interface TestUser {
  id: string;
  identityId: string;
  email: string;
  password: string;
}

/**
 * The running system's admin key ('' when its admin APIs need none; the cluster target always has
 * one). Outside Vitest (the browser bench, which starts its own keyless system) there is none.
 */
function adminKey(): string {
  try {
    return inject('adminKey');
  } catch {
    return '';
  }
}

/** The bearer header of the running system's admin APIs. */
function adminHeaders(): Record<string, string> {
  const key = adminKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}

export async function adminJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      ...adminHeaders(),
      ...init?.headers,
    },
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${url} → ${res.status} ${body}`);
  return JSON.parse(body) as T;
}

/** The identity service's admin API of the running system, through its typed client. */
export function identityAdmin(urls: SystemUrls): IdentityAdminClient {
  return createIdentityAdminClient({
    baseUrl: urls.identityAdmin,
    adminKey: adminKey() || undefined,
  });
}

let acmeId: string | undefined;

/** The id of the seeded demo organisation, Acme. */
async function demoOrganisationId(urls: SystemUrls): Promise<string> {
  if (acmeId) return acmeId;
  const { organisations } = await adminJson<{ organisations: { id: string; name: string }[] }>(
    `${urls.usersAdmin}/admin/organisations`,
  );
  const found = organisations.find((o) => o.name === 'Acme');
  if (!found) throw new Error('the demo organisation Acme was not seeded');
  acmeId = found.id;
  return acmeId;
}

/** A password user `email` of the organisation, with a fresh password, through the user service's admin API. */
async function addUser(
  urls: SystemUrls,
  person: { organisationId: string; email: string; role: string; firstName: string; lastName: string },
): Promise<TestUser> {
  const password = `Journey-${randomBytes(6).toString('hex')}!1`;
  const user = await adminJson<{ id: string; identityId: string }>(`${urls.usersAdmin}/admin/users`, {
    method: 'POST',
    body: JSON.stringify({ ...person, password }),
  });
  return { id: user.id, identityId: user.identityId, email: person.email, password };
}

/** A fresh organisation of its own domain (`<tag>.test`), through the user service's admin API. */
async function addOrganisation(
  urls: SystemUrls,
  tag: string,
  org: { name: string; products: string[]; subscriptionStatus?: 'subscribed' | 'not_subscribed' },
): Promise<{ id: string; domain: string }> {
  const domain = `${tag}.test`;
  const { id } = await adminJson<{ id: string }>(`${urls.usersAdmin}/admin/organisations`, {
    method: 'POST',
    body: JSON.stringify({ ...org, domains: [domain] }),
  });
  return { id, domain };
}

/** A fresh password user of the demo organisation, made through the user service's admin API. */
export async function createUser(
  urls: SystemUrls,
  overrides: Partial<{ role: string }> = {},
): Promise<TestUser> {
  return addUser(urls, {
    organisationId: await demoOrganisationId(urls),
    email: `e2e-${randomBytes(5).toString('hex')}@acme.test`,
    firstName: 'Test',
    lastName: 'Journey',
    role: overrides.role ?? 'member',
  });
}

/**
 * A fresh organisation (`org`: its products and subscription) with one password member, through the
 * user service's admin API.
 */
export async function organisationWithMember(
  urls: SystemUrls,
  org: { products: string[]; subscriptionStatus: 'subscribed' | 'not_subscribed' },
): Promise<{ email: string; password: string }> {
  const tag = randomBytes(4).toString('hex');
  const { id, domain } = await addOrganisation(urls, `org-${tag}`, { name: `Org ${tag}`, ...org });
  const { email, password } = await addUser(urls, {
    organisationId: id,
    email: `member@${domain}`,
    firstName: 'Org',
    lastName: 'Member',
    role: 'member',
  });
  return { email, password };
}

export interface Member {
  id: string;
  email: string;
  password: string;
}

/**
 * An organisation (its own domain) with an org-admin and a member, and how the operator enforces SSO
 * (against the organisations' OIDC stand-in) with the org-admin exempted, the break-glass admin.
 */
export async function ssoOrganisation(urls: SystemUrls) {
  const label = `bg${randomBytes(4).toString('hex')}`;
  const org = await addOrganisation(urls, label, { name: `Break-glass ${label}`, products: ['Platform'] });
  const user = async (local: string, role: string): Promise<Member> => {
    const { id, email, password } = await addUser(urls, {
      organisationId: org.id,
      email: `${local}@${org.domain}`,
      firstName: 'Break',
      lastName: 'Glass',
      role,
    });
    return { id, email, password };
  };
  const admin = await user('root', 'org-admin');
  const member = await user('member', 'member');
  /** SSO enforced, the org-admin exempted (the break-glass admin). */
  const enforce = async () => {
    await adminJson(`${urls.usersAdmin}/admin/organisations/${org.id}/sso`, {
      method: 'PUT',
      body: JSON.stringify({
        provider: label,
        issuer: urls.orgIdp,
        clientId: `client-${label}`,
        clientSecret: randomBytes(16).toString('hex'),
        enforce: true,
      }),
    });
    await adminJson(`${urls.usersAdmin}/admin/organisations/${org.id}/sso/break-glass`, {
      method: 'PUT',
      body: JSON.stringify({ userId: admin.id }),
    });
  };
  return { admin, member, enforce };
}

export interface Invited {
  id: string;
  identityId: string;
  email: string;
  /** The onboarding link of the invitation email, read from the stand-ins' mailbox. */
  link: string;
}

/** An admin invites a new member of the demo organisation; the link is read from the mailbox. */
export async function invite(urls: SystemUrls, options: { isGitUser?: boolean } = {}): Promise<Invited> {
  const email = `invitee-${randomBytes(5).toString('hex')}@acme.test`;
  const invitation = await adminJson<{ id: string; identityId: string }>(
    `${urls.usersAdmin}/admin/invitations`,
    {
      method: 'POST',
      body: JSON.stringify({
        organisationId: await demoOrganisationId(urls),
        email,
        firstName: 'Invited',
        lastName: 'Person',
        role: 'member',
        ...(options.isGitUser ? { isGitUser: true } : {}),
      }),
    },
  );
  const mail = await newestMail(urls, email);
  const link = /https?:\/\/\S+\/account\/onboarding\?\S+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no onboarding link in "${mail.subject}"`);
  return { id: invitation.id, identityId: invitation.identityId, email, link };
}
