// A plain oidc-provider 9 (minimal configuration) on our adapter: the reference the token
// workloads are compared with. Used in process by oauth2-bench.ts, and as a process of its own for
// the two-instance comparison: `node --import tsx bench/plain-provider.ts` with DATABASE_URL,
// PLAIN_PORT, PLAIN_ISSUER and PLAIN_JWKS (the private JWKS every instance signs with) prints
// `{"ready":true}` once it listens.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration } from 'oidc-provider';
import { createDb, type Database } from '@acme/db';
import { systemClock } from '@acme/db/clock';
import { loadConfig } from '@acme/oauth2';
import { createAdapterRegistry } from '../services/oauth2/src/adapter/postgres-adapter.ts';

export const RESOURCE = 'urn:acme:api';
export const CLIENT_ID = 'platform';
export const REDIRECT_URI = 'http://localhost:4000/account/callback';

/** The same client, token formats and refresh grace as ours; storage `db` (or memory without it). */
export function plainProvider(issuer: string, db: Database | undefined, jwks?: { keys: object[] }): Provider {
  const configuration: Configuration = {
    ...(db
      ? {
          adapter: createAdapterRegistry({
            db,
            clock: systemClock,
            graceSeconds: loadConfig({ OAUTH2_PUBLIC_URL: issuer }).refreshGraceSeconds, // as ours
          }).factory,
        }
      : {}),
    ...(jwks ? { jwks: jwks as Configuration['jwks'] } : {}),
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: 'openid offline_access',
      },
    ],
    features: {
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'openid offline_access',
          audience: RESOURCE,
          accessTokenFormat: 'jwt',
          accessTokenTTL: 600,
        }),
      },
    },
  };
  return new Provider(issuer, configuration);
}

export async function listen(server: Server, port = 0): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const db = await createDb({ url: process.env.DATABASE_URL, poolMax: 10 });
  const jwks = JSON.parse(process.env.PLAIN_JWKS ?? '{"keys":[]}') as { keys: object[] };
  const provider = plainProvider(process.env.PLAIN_ISSUER ?? '', db, jwks);
  const server = createServer(provider.callback());
  await listen(server, Number(process.env.PLAIN_PORT));
  console.log(JSON.stringify({ ready: true }));
  process.once('SIGTERM', () => {
    server.close();
    void db.close().then(() => process.exit(0));
  });
}
