// Every development stand-in in one process: `npm start -w @acme/dev`. Mailbox and SMTP catcher,
// GitHub-like host (dev/src/config.ts: STANDINS_*), Entra, Graph and marketplace, and Globex's
// identity provider (loadExtrasConfig: ENTRA_PORT, ORG_IDP_PORT, ORG_IDP_CLIENT_SECRET…), and
// Initech's SAML IdP (SAML_IDP_PORT, 4521).
import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { hardenPrototype } from '@acme/service-kit/prototype';
import { startIdleGc } from '@acme/service-kit/idle-gc';
import { loadExtrasConfig } from './config.ts';
import { loadConfig, startDemoApp, startOrgIdp, startSamlIdp, startStandIns } from './index.ts';

exitOnUnhandledErrors('dev-stand-ins');
hardenPrototype('dev-stand-ins'); // started with --disable-proto=delete; else removed now
startIdleGc(); // memory back to the system once load has passed

const config = loadConfig();
const extras = loadExtrasConfig();
const standIns = await startStandIns({
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
});
const orgIdp = await startOrgIdp({
  port: extras.orgIdpPort,
  clients: extras.orgIdpClient ? [extras.orgIdpClient] : [],
});
const samlIdp = await startSamlIdp({ port: extras.samlIdpPort });
const demoApp = await startDemoApp(extras.demoApp);

console.log('Development stand-ins are running:');
for (const [name, url] of Object.entries(standIns.urls)) console.log(`  ${name.padEnd(10)} ${url}`);
for (const [name, url] of Object.entries(standIns.microsoft?.urls ?? {}))
  console.log(`  ${name.padEnd(10)} ${url}`);
console.log(`  ${'org IdP'.padEnd(10)} ${orgIdp.issuer}`);
console.log(`  ${'SAML IdP'.padEnd(10)} ${samlIdp.entityId}`);
console.log(`  ${'demo app'.padEnd(10)} ${demoApp.url}`);
console.log(`  GitHub clients: ${config.githubClients.map((c) => c.clientId).join(', ')}`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    Promise.all([standIns.close(), orgIdp.close(), samlIdp.close(), demoApp.close()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
