// What every development system gets on top of its services, whether it runs in one process
// (`npm start`, scripts/system.ts) or scaled out (`npm run start:cluster`, scripts/cluster-system.ts):
// the demo data, and the raised per-IP limits the journeys and benchmarks run with.
import { randomBytes } from 'node:crypto';
import { DEMO_CONTOSO_TENANT_ID, DEMO_FABRIKAM_TENANT_ID, demoSamlIdpMetadata } from '@acme/dev';
import { seedDemo, type SeedResult } from '@acme/users';

/** Per-IP limits raised for the journeys and benchmarks, where every request comes from 127.0.0.1. */
export const LOOPBACK_TEST_LIMITS: Record<string, string> = {
  LOGIN_CONFIG_RATE_LIMIT: '100000',
  IDENTITY_IP_FAILURE_LIMIT: '100000',
  INVITATION_STATUS_RATE_LIMIT: '100000',
  AGENT_RATE_LIMIT: '100000',
};

/** The identity service's client at Globex's identity provider (the stand-in's ORG_IDP_CLIENT_ID default). */
const ORG_IDP_CLIENT_ID = 'acme-platform';

/** A new client secret at Globex's provider for each start: the stand-in is given it, the seed stores it. */
export function newOrgIdpClientSecret(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The demo data, through the user service's admin API: the demo accounts, the Microsoft 365
 * tenants (Contoso, Fabrikam), Globex with single sign-on through its identity provider, and
 * Initech with SAML through the SAML IdP stand-in at `samlIdpUrl` (its metadata from dev config).
 */
export function seedDemoSystem(
  usersAdminUrl: string,
  adminKey: string | undefined,
  orgIdp: { issuer: string; clientSecret: string },
  samlIdpUrl: string,
): Promise<SeedResult> {
  return seedDemo(usersAdminUrl, adminKey, {
    m365: { contosoTenantId: DEMO_CONTOSO_TENANT_ID, fabrikamTenantId: DEMO_FABRIKAM_TENANT_ID },
    sso: { issuer: orgIdp.issuer, clientId: ORG_IDP_CLIENT_ID, clientSecret: orgIdp.clientSecret },
    saml: { metadataXml: demoSamlIdpMetadata(samlIdpUrl) },
  });
}
