// Every development stand-in in one process: `npm start -w @acme/dev`. Mailbox and SMTP catcher,
// GitHub-like host (dev/src/config.ts: STANDINS_*), Entra, Graph and marketplace, and Globex's
// identity provider (loadExtrasConfig: ENTRA_PORT, ORG_IDP_PORT, ORG_IDP_CLIENT_SECRET…), and
// Initech's SAML IdP (SAML_IDP_PORT, 4521).
import { enterProcess } from '@acme/service-kit/entry-point';
import { startEveryStandIn } from './every-stand-in.ts';

enterProcess('dev-stand-ins');

const { config, standIns, orgIdp, samlIdp, demoApp, close } = await startEveryStandIn();

console.log('Development stand-ins are running:');
for (const [name, url] of Object.entries(standIns.urls)) console.log(`  ${name.padEnd(10)} ${url}`);
for (const [name, url] of Object.entries(standIns.microsoft.urls)) console.log(`  ${name.padEnd(10)} ${url}`);
console.log(`  ${'org IdP'.padEnd(10)} ${orgIdp.issuer}`);
console.log(`  ${'SAML IdP'.padEnd(10)} ${samlIdp.entityId}`);
console.log(`  ${'demo app'.padEnd(10)} ${demoApp.url}`);
console.log(`  GitHub clients: ${config.githubClients.map((c) => c.clientId).join(', ')}`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
