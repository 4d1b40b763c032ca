// `npm run nginx:conf`: writes docker/nginx.conf, the production example of the nginx configuration
// (packages/cluster/src/nginx.ts renders it; a test fails when the file is stale).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRODUCTION_EXAMPLE, renderNginxConfig } from '@acme/cluster/nginx';
import { repoRoot } from '@acme/cluster/processes';

const target = join(repoRoot, 'docker', 'nginx.conf');
writeFileSync(target, renderNginxConfig(PRODUCTION_EXAMPLE));
console.log(`wrote ${target}`);
