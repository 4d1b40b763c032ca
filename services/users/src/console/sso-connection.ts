import { z } from 'zod';
import { SSO_CONNECTION_CHECKS, type SsoConnectionCheckId } from '@acme/users-contract/console-sso';
import {
  fetchJson,
  OutboundError,
  type OutboundFailure,
  type OutboundPolicy,
} from '@acme/service-kit/outbound';

// Test connection: the organisation's provider as our relying parties will see it. Each check is
// reported separately (by id, with the facts found), so the console can say in words what passed.

/** Signing algorithms our relying parties verify (openid-client and jose). */
export const SUPPORTED_ID_TOKEN_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
] as const;

const CONNECTION_CHECKS = SSO_CONNECTION_CHECKS;

type ConnectionCheckId = SsoConnectionCheckId;

export interface ConnectionCheck {
  check: ConnectionCheckId;
  ok: boolean;
  /** Why it failed (`timeout`, `not_https`, `mismatch`, `missing`…), null when it passed. */
  reason: string | null;
  /** What was found: a URL, an issuer, a key count, algorithms, scopes (never a secret). */
  value: string | null;
}

const endpoint = z.string().max(2000);

const discoverySchema = z.object({
  issuer: z.string().max(2000),
  authorization_endpoint: endpoint.optional(),
  token_endpoint: endpoint.optional(),
  jwks_uri: endpoint.optional(),
  id_token_signing_alg_values_supported: z.array(z.string().max(50)).max(50).optional(),
  scopes_supported: z.array(z.string().max(200)).max(500).optional(),
});

export type Discovery = z.infer<typeof discoverySchema>;

const jwksSchema = z.object({
  keys: z.array(
    z.object({ kty: z.string(), use: z.string().optional(), alg: z.string().optional() }).loose(),
  ),
});

function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

function failureReason(error: unknown): OutboundFailure {
  return error instanceof OutboundError ? error.reason : 'unreachable';
}

/** The provider's discovery document, checked to name `issuer`; throws OutboundError or `mismatch`. */
export async function fetchDiscovery(
  issuer: string,
  policy: OutboundPolicy,
): Promise<{ document: Discovery } | { failure: OutboundFailure | 'invalid' | 'mismatch'; found?: string }> {
  let answer: { status: number; body: unknown };
  try {
    answer = await fetchJson(discoveryUrl(issuer), policy);
  } catch (error) {
    return { failure: failureReason(error) };
  }
  if (answer.status !== 200) return { failure: 'http_status' };
  const parsed = discoverySchema.safeParse(answer.body);
  if (!parsed.success) return { failure: 'invalid' };
  if (parsed.data.issuer.replace(/\/+$/, '') !== issuer.replace(/\/+$/, '')) {
    return { failure: 'mismatch', found: parsed.data.issuer };
  }
  return { document: parsed.data };
}

/** The keys of the provider's JWKS (throws OutboundError). */
export async function fetchJwks(uri: string, policy: OutboundPolicy): Promise<z.infer<typeof jwksSchema>> {
  const answer = await fetchJson(uri, policy);
  if (answer.status !== 200) throw new OutboundError('http_status', answer.status);
  const parsed = jwksSchema.safeParse(answer.body);
  if (!parsed.success) throw new OutboundError('not_json');
  return parsed.data;
}

export const pass = (check: ConnectionCheckId, value: string | null = null): ConnectionCheck => ({
  check,
  ok: true,
  reason: null,
  value,
});
export const fail = (
  check: ConnectionCheckId,
  reason: string,
  value: string | null = null,
): ConnectionCheck => ({
  check,
  ok: false,
  reason,
  value,
});

/** Runs every check; a check that can not run because an earlier one failed is reported as `skipped`. */
export async function testConnection(
  issuer: string,
  scopes: readonly string[],
  policy: OutboundPolicy,
): Promise<ConnectionCheck[]> {
  const discovery = await fetchDiscovery(issuer, policy);
  if ('failure' in discovery) {
    if (discovery.failure === 'mismatch') {
      return [
        pass('discovery', discoveryUrl(issuer)),
        fail('issuer', 'mismatch', discovery.found ?? null),
        ...CONNECTION_CHECKS.slice(2).map((c) => fail(c, 'skipped')),
      ];
    }
    return [
      fail('discovery', discovery.failure, discoveryUrl(issuer)),
      ...CONNECTION_CHECKS.slice(1).map((c) => fail(c, 'skipped')),
    ];
  }
  const doc = discovery.document;
  const checks: ConnectionCheck[] = [pass('discovery', discoveryUrl(issuer)), pass('issuer', doc.issuer)];
  for (const name of ['authorization_endpoint', 'token_endpoint'] as const) {
    const url = doc[name];
    if (!url) checks.push(fail(name, 'missing'));
    else if (!/^https:\/\//.test(url) && !(url.startsWith('http://') && isAllowedHttp(url, policy)))
      checks.push(fail(name, 'not_https', url));
    else checks.push(pass(name, url));
  }
  if (!doc.jwks_uri) checks.push(fail('jwks', 'missing'));
  else {
    try {
      const jwks = await fetchJwks(doc.jwks_uri, policy);
      const signing = jwks.keys.filter((k) => k.use === undefined || k.use === 'sig');
      checks.push(
        signing.length > 0 ? pass('jwks', String(signing.length)) : fail('jwks', 'no_keys', doc.jwks_uri),
      );
    } catch (error) {
      checks.push(fail('jwks', failureReason(error), doc.jwks_uri));
    }
  }
  // OpenID Connect Discovery 1.0 requires the list; RS256 is the default when it is left out.
  const algs = doc.id_token_signing_alg_values_supported ?? ['RS256'];
  const usable = algs.filter((a) => (SUPPORTED_ID_TOKEN_ALGS as readonly string[]).includes(a));
  checks.push(
    usable.length > 0
      ? pass('algorithms', usable.join(' '))
      : fail('algorithms', 'unsupported', algs.join(' ')),
  );
  const offered = doc.scopes_supported;
  const missing = offered ? scopes.filter((s) => !offered.includes(s)) : [];
  checks.push(
    missing.length === 0
      ? pass('scopes', scopes.join(' '))
      : fail('scopes', 'unsupported', missing.join(' ')),
  );
  return checks;
}

export function isAllowedHttp(url: string, policy: OutboundPolicy): boolean {
  try {
    return policy.httpHosts.includes(new URL(url).hostname.toLowerCase());
  } catch {
    return false;
  }
}
