import type { OAuth2Context, OAuth2Runtime } from '../context.ts';
import { OAuth2Error } from '../errors.ts';

/**
 * Hydra's consent sessions of a subject (`GET /admin/oauth2/auth/sessions/consent?subject=`): the
 * applications a person granted access, as the account page's "Connected apps" lists them; and
 * their revocation (`DELETE …?subject=&client=` or `&all=true`), which ends each grant with every
 * token of it.
 */
export async function listConsentSessions(rt: OAuth2Runtime, subject: unknown) {
  const sub = requireSubject(subject);
  const grants = await rt.claims.grantsOf(sub);
  const names = new Map<string, string>();
  for (const clientId of new Set(grants.map((g) => g.clientId))) {
    names.set(clientId, (await rt.clients.find(clientId))?.client_name ?? clientId);
  }
  return grants.map((g) => ({
    consent_request: {
      subject: sub,
      client: { client_id: g.clientId, client_name: names.get(g.clientId) ?? g.clientId },
    },
    grant_scope: g.scopes,
    handled_at: g.grantedAt.toISOString(),
  }));
}

export async function revokeConsentSessions(rt: OAuth2Context, query: Record<string, unknown>) {
  const sub = requireSubject(query.subject);
  const client = typeof query.client === 'string' && query.client ? query.client : undefined;
  if (!client && query.all !== 'true')
    throw OAuth2Error.invalidRequest('Either "client" or "all=true" must be given.');
  const grants = await rt.claims.grantsOf(sub);
  for (const g of grants) if (!client || g.clientId === client) await rt.claims.endGrant(g.grantId);
}

function requireSubject(subject: unknown): string {
  if (typeof subject !== 'string' || !subject || subject.length > 256)
    throw OAuth2Error.invalidRequest('The "subject" query parameter is required.');
  return subject;
}
