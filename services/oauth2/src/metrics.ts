import type Provider from 'oidc-provider';
import { counter, type Counter, type ServiceMetrics } from '@acme/service-kit/metrics';

/** The authorization server's own counters, beside the request timings of every service. */
export interface OAuth2Counters {
  tokensIssued: Counter<'grant_type'>;
  refreshReuse: Counter;
}

/** Grant types the server offers; anything else a client sends is counted as `other` (bounded labels). */
const GRANT_TYPES = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:device_code',
]);

/**
 * oidc-provider's `error_detail` of a refresh token presented again after its rotation (past the
 * grace window): the library then revokes the whole grant (reuse detection).
 */
const REFRESH_REUSE = 'refresh token already used';

export function createOAuth2Metrics(metrics: ServiceMetrics): OAuth2Counters {
  return {
    tokensIssued: counter(
      metrics,
      'oauth2_tokens_issued_total',
      'Successful token requests by grant type (the token endpoint; `federated` for the admin federated-token endpoint).',
      ['grant_type'],
    ),
    refreshReuse: counter(
      metrics,
      'oauth2_refresh_reuse_detected_total',
      'Refresh tokens presented again after their rotation (past the grace window): each revokes its whole grant.',
      [],
    ),
  };
}

/** Counts the token endpoint's outcomes of one provider (the provider is rebuilt when keys change). */
export function countTokenEvents(provider: Provider, counters: OAuth2Counters): void {
  provider.on('grant.success', (ctx) => {
    const grantType = String(ctx.oidc.params?.grant_type ?? '');
    counters.tokensIssued.inc({ grant_type: GRANT_TYPES.has(grantType) ? grantType : 'other' });
  });
  provider.on('grant.error', (_ctx, error: { error_detail?: string }) => {
    if (error.error_detail === REFRESH_REUSE) counters.refreshReuse.inc();
  });
}
