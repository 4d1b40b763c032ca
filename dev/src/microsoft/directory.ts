/**
 * The Microsoft directory the Entra, Graph, Teams-host and marketplace stand-ins share: tenants,
 * their people, and the registered applications. Development and test data only.
 */

export interface DirectoryUser {
  /** Entra object id (GUID), `oid` in tokens and `id` in Graph. */
  objectId: string;
  /** Sign-in name, `preferred_username`, Graph `mail` and `userPrincipalName`. */
  email: string;
  displayName: string;
  givenName: string;
  surname: string;
  password: string;
  /** Azure roles on the tenant's subscription; Owner or Contributor may buy marketplace offers. */
  azureRoles?: ('Owner' | 'Contributor')[];
}

export interface DirectoryTenant {
  tenantId: string;
  displayName: string;
  /** Graph `verifiedDomains`; exactly one is the default. */
  domains: { name: string; isDefault: boolean }[];
  /**
   * Whether an administrator consented to the applications' directory permissions
   * (Organization.Read.All). Without it, tokens leave that scope out and on-behalf-of answers
   * AADSTS65001.
   */
  adminConsent: boolean;
  users: DirectoryUser[];
}

export interface EntraApp {
  clientId: string;
  displayName: string;
  /** Confidential clients (on-behalf-of, client credentials) have one. */
  clientSecret?: string;
  /** A redirect_uri is accepted when its origin is one of these (http(s) origins). */
  redirectOrigins: string[];
  /** The Application ID URI (`api://…`), also accepted as an audience of its tokens. */
  appIdUri?: string;
  /** Tenant the app is registered in (its service principal's home). */
  homeTenantId: string;
}

export interface Directory {
  tenants: DirectoryTenant[];
  apps: EntraApp[];
}

/** Microsoft Graph's application id: the audience of Graph tokens. */
export const GRAPH_APP_ID = '00000003-0000-0000-c000-000000000000';
export const GRAPH_RESOURCE_URL = 'https://graph.microsoft.com';
/** The Azure Marketplace SaaS Fulfillment API's application id (Microsoft's, fixed). */
export const MARKETPLACE_APP_ID = '20e940b3-4c77-4b0b-9a53-9e16a1b010a7';
/** The Teams web client's application id: `azp` of Teams SSO tokens. */
export const TEAMS_WEB_CLIENT_ID = '5e3ce6c0-2b1f-4285-8d4b-75ee78787346';

/** The Teams desktop and mobile clients' application id: `azp` of their SSO tokens. */
export const TEAMS_DESKTOP_CLIENT_ID = '1fec8e78-bce4-4aaf-ab1b-5451cc387264';

/**
 * A third-party application registered in another tenant (multi-tenant, public client). It can ask
 * Entra for a token for our API (`api://…/access_as_user`): that token's `aud` is ours, its `azp`
 * is this id. Tests use it as the "foreign client" our services must refuse.
 */
export const DEMO_FOREIGN_CLIENT_ID = '7a3e5c2b-9d1f-4e6a-8b2c-3d4e5f6a7b8c';
export const DEMO_FOREIGN_REDIRECT_ORIGIN = 'http://localhost:4599';

/** Our application's registration (MAGIC). */
export const DEMO_M365_CLIENT_ID = '6f2d4c1a-8b3e-4f5d-9a7c-1e2b3c4d5e6f';
export const DEMO_M365_CLIENT_SECRET = 'magic-dev-client-secret';
/** Secret of the marketplace's own registration, used by the marketplace stand-in for webhooks. */
export const DEMO_MARKETPLACE_CLIENT_SECRET = 'marketplace-dev-secret';

export const DEMO_PUBLISHER_TENANT_ID = '5f1e2d3c-4b5a-4968-8776-a5b4c3d2e133';
export const DEMO_CONTOSO_TENANT_ID = 'b8f2c0a1-6d3e-4f7a-9c2b-1e5d8a4f0c11';
export const DEMO_FABRIKAM_TENANT_ID = 'e3a9d7c5-2b1f-4e8d-a6c4-7f0b9d2e5a22';
export const DEMO_NORTHWIND_TENANT_ID = '9d8c7b6a-5f4e-4d3c-b2a1-0f9e8d7c6b44';

export const DEMO_CONTOSO_PASSWORD = 'Contoso-Demo-2026!';
export const DEMO_FABRIKAM_PASSWORD = 'Fabrikam-Demo-2026!';
export const DEMO_NORTHWIND_PASSWORD = 'Northwind-Demo-2026!';

export const DEMO_TENANTS: DirectoryTenant[] = [
  {
    // The publisher's own tenant, where our app and its marketplace offer are registered.
    tenantId: DEMO_PUBLISHER_TENANT_ID,
    displayName: 'Acme (publisher)',
    domains: [{ name: 'acme-publisher.test', isDefault: true }],
    adminConsent: true,
    users: [],
  },
  {
    tenantId: DEMO_CONTOSO_TENANT_ID,
    displayName: 'Contoso',
    domains: [{ name: 'contoso.test', isDefault: true }],
    adminConsent: true,
    users: [
      {
        objectId: '1c0a2b3d-4e5f-4a6b-8c7d-000000000001',
        email: 'megan@contoso.test',
        displayName: 'Megan Bowen',
        givenName: 'Megan',
        surname: 'Bowen',
        password: DEMO_CONTOSO_PASSWORD,
        azureRoles: ['Owner'],
      },
      {
        objectId: '1c0a2b3d-4e5f-4a6b-8c7d-000000000002',
        email: 'diego@contoso.test',
        displayName: 'Diego Siciliani',
        givenName: 'Diego',
        surname: 'Siciliani',
        password: DEMO_CONTOSO_PASSWORD,
      },
    ],
  },
  {
    tenantId: DEMO_FABRIKAM_TENANT_ID,
    displayName: 'Fabrikam',
    domains: [{ name: 'fabrikam.test', isDefault: true }],
    adminConsent: true,
    users: [
      {
        objectId: '2d1b3c4e-5f6a-4b7c-9d8e-000000000001',
        email: 'alex@fabrikam.test',
        displayName: 'Alex Wilber',
        givenName: 'Alex',
        surname: 'Wilber',
        password: DEMO_FABRIKAM_PASSWORD,
        azureRoles: ['Owner'],
      },
    ],
  },
  {
    tenantId: DEMO_NORTHWIND_TENANT_ID,
    displayName: 'Northwind',
    domains: [{ name: 'northwind.test', isDefault: true }],
    adminConsent: false,
    users: [
      {
        objectId: '3e2c4d5f-6a7b-4c8d-8e9f-000000000001',
        email: 'lee@northwind.test',
        displayName: 'Lee Gu',
        givenName: 'Lee',
        surname: 'Gu',
        password: DEMO_NORTHWIND_PASSWORD,
      },
    ],
  },
];

/** The demo directory for application origins (MAGIC and the others that may use m365). */
export function demoDirectory(
  appOrigins: string[] = ['http://localhost:4001', 'http://localhost:4004'],
): Directory {
  return {
    tenants: structuredClone(DEMO_TENANTS),
    apps: [
      {
        clientId: DEMO_M365_CLIENT_ID,
        displayName: 'MAGIC',
        clientSecret: DEMO_M365_CLIENT_SECRET,
        redirectOrigins: appOrigins,
        appIdUri: `api://localhost/${DEMO_M365_CLIENT_ID}`,
        homeTenantId: DEMO_PUBLISHER_TENANT_ID,
      },
      {
        clientId: DEMO_FOREIGN_CLIENT_ID,
        displayName: 'Expense Tracker (third party)',
        redirectOrigins: [DEMO_FOREIGN_REDIRECT_ORIGIN],
        homeTenantId: DEMO_NORTHWIND_TENANT_ID,
      },
      {
        clientId: MARKETPLACE_APP_ID,
        displayName: 'Microsoft Marketplace SaaS Fulfillment',
        clientSecret: DEMO_MARKETPLACE_CLIENT_SECRET,
        redirectOrigins: [],
        homeTenantId: DEMO_PUBLISHER_TENANT_ID,
      },
    ],
  };
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isGuid = (value: string): boolean => GUID.test(value);

export function findTenant(directory: Directory, tenantId: string): DirectoryTenant | undefined {
  return directory.tenants.find((t) => t.tenantId === tenantId.toLowerCase());
}

/** The person signing in with this email, and their home tenant. */
export function findPerson(
  directory: Directory,
  email: string,
): { tenant: DirectoryTenant; user: DirectoryUser } | undefined {
  const wanted = email.trim().toLowerCase();
  for (const tenant of directory.tenants) {
    const user = tenant.users.find((u) => u.email === wanted);
    if (user) return { tenant, user };
  }
  return undefined;
}

export function findPersonById(
  directory: Directory,
  tenantId: string,
  objectId: string,
): { tenant: DirectoryTenant; user: DirectoryUser } | undefined {
  const tenant = findTenant(directory, tenantId);
  const user = tenant?.users.find((u) => u.objectId === objectId);
  return tenant && user ? { tenant, user } : undefined;
}
