import { exitOnUnhandledErrors } from '@acme/service-kit/crash';
import { loadConfig, startStandIns } from './index.ts';

exitOnUnhandledErrors('dev-stand-ins');

const config = loadConfig();
const standIns = await startStandIns({
  httpPort: config.httpPort,
  smtpPort: config.smtpPort,
  ...(config.publicUrl ? { publicUrl: config.publicUrl } : {}),
  github: { clients: config.githubClients },
});

console.log('Development stand-ins are running:');
for (const [name, url] of Object.entries(standIns.urls)) console.log(`  ${name.padEnd(10)} ${url}`);
console.log(`  GitHub clients: ${config.githubClients.map((c) => c.clientId).join(', ')}`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    standIns.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
