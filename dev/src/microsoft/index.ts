import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import { demoDirectory, DEMO_M365_CLIENT_ID, type Directory } from './directory.ts';
import { createEntra, type Entra } from './entra.ts';
import { registerGraph } from './graph.ts';
import { createMarketplace, type Marketplace, type MarketplaceOptions } from './marketplace.ts';
import { teamsHostHandler, TEAMS_HOST_PATH } from './teams-host.ts';

export * from './directory.ts';
export { EntraError, type Entra } from './entra.ts';
export { TEAMS_HOST_PATH, TEAMS_AUTH_FAILURES, teamsHostHandler } from './teams-host.ts';
export type { Marketplace, MarketplaceOperation, MarketplaceSubscription } from './marketplace.ts';

export interface MicrosoftStandInsOptions {
  /** Entra (4510), Graph (4511), marketplace (4540); 0 picks a free port. */
  entraPort?: number;
  graphPort?: number;
  marketplacePort?: number;
  host?: string;
  /** The directory; {@link demoDirectory} for `appOrigins` by default. */
  directory?: Directory;
  /** Application origins allowed as redirect URIs of the demo app registration. */
  appOrigins?: string[];
  clock?: { now(): Date };
  tokenTtlSeconds?: number;
  /** Marketplace settings; its `clock` defaults to the stand-ins' clock. */
  marketplace?: Omit<MarketplaceOptions, 'entra'>;
}

export interface MicrosoftStandIns {
  urls: {
    /** Like https://login.microsoftonline.com */
    entra: string;
    /** Like https://graph.microsoft.com */
    graph: string;
    /** Like https://marketplaceapi.microsoft.com; the buyer page is at `/`. */
    marketplace: string;
  };
  entra: Entra;
  marketplace: Marketplace;
  /** The Teams host page handler for the app server of `clientId` (see TEAMS_HOST_PATH). */
  teamsHost(options?: { clientId?: string; appPath?: string }): ReturnType<typeof teamsHostHandler>;
  teamsHostPath: string;
  close(): Promise<void>;
}

async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  await app.listen({ port, host });
  return `http://localhost:${(app.server.address() as AddressInfo).port}`;
}

/** Starts the Entra, Graph and marketplace stand-ins, each on its own origin. */
export async function startMicrosoftStandIns(
  options: MicrosoftStandInsOptions = {},
): Promise<MicrosoftStandIns> {
  const host = options.host ?? '127.0.0.1';
  const clock = options.clock ?? { now: () => new Date() };
  const directory = options.directory ?? demoDirectory(options.appOrigins);
  const entra = await createEntra({ directory, clock, tokenTtlSeconds: options.tokenTtlSeconds });

  const servers: FastifyInstance[] = [];
  const close = async () => {
    await Promise.all(servers.map((s) => s.close()));
  };
  try {
    const entraApp = Fastify({ logger: false, bodyLimit: 256 * 1024 });
    servers.push(entraApp);
    await entraApp.register(formbody);
    entra.register(entraApp);
    entra.base = await listen(entraApp, options.entraPort ?? 4510, host);

    const graphApp = Fastify({ logger: false, bodyLimit: 64 * 1024 });
    servers.push(graphApp);
    registerGraph(graphApp, entra, clock);
    const graph = await listen(graphApp, options.graphPort ?? 4511, host);

    const marketplaceApp = Fastify({ logger: false, bodyLimit: 64 * 1024 });
    servers.push(marketplaceApp);
    await marketplaceApp.register(formbody);
    const marketplace = createMarketplace({ clock, ...options.marketplace, entra });
    marketplace.register(marketplaceApp);
    marketplace.base = await listen(marketplaceApp, options.marketplacePort ?? 4540, host);

    return {
      urls: { entra: entra.base, graph, marketplace: marketplace.base },
      entra,
      marketplace,
      teamsHost: (o = {}) =>
        teamsHostHandler({
          entraUrl: entra.base,
          clientId: o.clientId ?? DEMO_M365_CLIENT_ID,
          ...(o.appPath ? { appPath: o.appPath } : {}),
          defaultUser: 'megan@contoso.test',
        }),
      teamsHostPath: TEAMS_HOST_PATH,
      close,
    };
  } catch (err) {
    await close().catch(() => {});
    throw err;
  }
}
