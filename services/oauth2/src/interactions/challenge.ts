import type { Interaction } from 'oidc-provider';
import { OAuth2Error } from '../errors.ts';
import type { OAuth2Runtime } from '../context.ts';
import { clientView as storedClientView } from '../clients/client-document.ts';

/** Helpers shared by the login and consent challenge handlers. */

export const epochTime = (): number => Math.floor(Date.now() / 1000);

export function requireChallenge(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 512) {
    throw OAuth2Error.invalidRequest(`The ${name} parameter is missing or invalid.`);
  }
  return value;
}

/** Hydra's `request_url`: the authorization request that started the flow. */
function requestUrl(issuer: string, params: Record<string, unknown> | undefined): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (typeof value === 'string') query.set(key, value);
  }
  return `${issuer}/oauth2/auth?${query.toString()}`;
}

/**
 * Loads a pending interaction of the given prompt. Unknown (or another prompt's) challenge:
 * 404. Already answered or finished: 410 with `redirect_to` = the original request URL.
 */
export async function loadPendingInteraction(
  rt: OAuth2Runtime,
  uid: string,
  prompt: 'login' | 'consent',
): Promise<{ interaction: Interaction; requestUrl: string }> {
  const record = await rt.adapters.get('Interaction').findRecord(uid);
  if (!record || record.payload.prompt?.name !== prompt) {
    throw OAuth2Error.notFound(`Unable to locate the ${prompt} request.`);
  }
  const url = requestUrl(rt.config.issuer, record.payload.params);
  if (record.consumedAt !== undefined || record.payload.result) throw OAuth2Error.alreadyHandled(url);
  const interaction = await rt.provider.Interaction.find(uid);
  if (!interaction) throw OAuth2Error.notFound(`Unable to locate the ${prompt} request.`);
  return { interaction, requestUrl: url };
}

export async function saveInteraction(interaction: Interaction): Promise<void> {
  const ttl = interaction.exp - epochTime();
  if (ttl <= 0) throw OAuth2Error.notFound('The request has expired.');
  await interaction.save(ttl);
}

/** Hydra's client object of a login, consent or logout request (never its secret). */
export async function clientView(rt: OAuth2Runtime, clientId: unknown) {
  const client = typeof clientId === 'string' ? await rt.clients.find(clientId) : undefined;
  return client ? storedClientView(client) : { client_id: typeof clientId === 'string' ? clientId : '' };
}

export function splitScope(scope: unknown): string[] {
  return typeof scope === 'string' ? scope.split(' ').filter(Boolean) : [];
}

export function oidcContext(params: Record<string, unknown>) {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    acr_values: splitScope(params.acr_values),
    display: str(params.display) ?? '',
    id_token_hint_claims: {},
    login_hint: str(params.login_hint) ?? '',
    ui_locales: splitScope(params.ui_locales),
  };
}

/** Error answered through the redirect_uri (Hydra's reject body). */
export function rejectionResult(body: {
  error?: string | undefined;
  error_description?: string | undefined;
  error_hint?: string | undefined;
}): { error: string; error_description: string } {
  const error = body.error && /^[a-z_]{1,64}$/.test(body.error) ? body.error : 'access_denied';
  const description =
    [body.error_description, body.error_hint].filter(Boolean).join(' ') ||
    'The resource owner or authorization server denied the request.';
  return { error, error_description: description.slice(0, 500) };
}
