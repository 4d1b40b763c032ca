import type { SessionFacts } from '../shared/session/session-facts.ts';
import type { EmailResult } from '../shared/storage/registry.ts';
import type { ConsentScreenData } from '../shared/users-client/users-client.ts';

export const NOW = Date.parse('2026-01-01T12:00:00Z');
const FUTURE = '2026-02-01T00:00:00Z';
export const PAST = '2025-12-01T00:00:00Z';

export function facts(overrides: Partial<SessionFacts> = {}): SessionFacts {
  return {
    id: 'sess-1',
    email: 'ada@acme.test',
    aal: 'aal1',
    methods: ['password'],
    firstAddressVerified: true,
    isGitUser: false,
    gitProviderConnected: false,
    tosAccepted: true,
    mfaSetupDeadline: FUTURE,
    ...overrides,
  };
}

export function emailResult(overrides: Partial<EmailResult> = {}): EmailResult {
  return { email: 'ada@acme.test', isSSO: false, isM365: false, provider: null, ...overrides };
}

/** The user service's consent request (`GET /login/consent/request`): the platform's own app by default. */
export function consentRequest(overrides: Partial<ConsentScreenData> = {}): ConsentScreenData {
  return {
    needsConsent: false,
    client: {
      clientId: 'platform',
      name: 'Platform',
      logoUri: null,
      clientUri: null,
      policyUri: null,
      tosUri: null,
    },
    registeredBy: { organisation: null },
    requestedScope: ['openid'],
    organisation: { name: 'Acme' },
    ...overrides,
  };
}
