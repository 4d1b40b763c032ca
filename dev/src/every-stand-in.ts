// Every stand-in, started from the stand-ins' settings (config.ts) and nothing else: by their own
// process (main.ts, the cluster's) and by `npm start` (scripts/system.ts), each from the environment
// the system's shape gives the stand-ins (packages/cluster/src/service-env.ts).
import { loadConfig, loadExtrasConfig, type StandInsConfig } from './config.ts';
import { startDemoApp, startOrgIdp, startSamlIdp, startStandIns, type StandIns } from './index.ts';
import type { MicrosoftStandIns } from './microsoft/index.ts';
import type { OrgIdp } from './org-idp.ts';
import type { SamlIdp } from './saml-idp.ts';

export interface EveryStandIn {
  /** The stand-ins' own settings, as parsed. */
  config: StandInsConfig;
  /** Mailbox, SMTP catcher, GitHub-like host, and the Microsoft stand-ins. */
  standIns: StandIns & { microsoft: MicrosoftStandIns };
  /** Globex's OpenID Connect provider. */
  orgIdp: OrgIdp;
  /** Initech's SAML IdP. */
  samlIdp: SamlIdp;
  /** The demo third-party app. */
  demoApp: { url: string; close(): Promise<void> };
  close(): Promise<void>;
}

/** Starts every stand-in on the ports and with the URLs its settings in `env` name (default: the process's). */
export async function startEveryStandIn(env?: Record<string, string | undefined>): Promise<EveryStandIn> {
  const config = loadConfig(env);
  const extras = loadExtrasConfig(env);
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const standIns = (await startStandIns({
      httpPort: config.httpPort,
      smtpPort: config.smtpPort,
      ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
      github: { clients: config.githubClients },
      microsoft: {
        entraPort: extras.entraPort,
        graphPort: extras.graphPort,
        marketplacePort: extras.marketplacePort,
        appOrigins: extras.appOrigins,
        marketplace: extras.marketplace,
      },
    })) as EveryStandIn['standIns'];
    closers.push(standIns.close);
    const orgIdp = await startOrgIdp({
      port: extras.orgIdpPort,
      clients: extras.orgIdpClient ? [extras.orgIdpClient] : [],
    });
    closers.push(orgIdp.close);
    const samlIdp = await startSamlIdp({ port: extras.samlIdpPort });
    closers.push(samlIdp.close);
    const demoApp = await startDemoApp(extras.demoApp);
    closers.push(demoApp.close);
    return { config, standIns, orgIdp, samlIdp, demoApp, close };
  } catch (error) {
    await close();
    throw error;
  }
}
