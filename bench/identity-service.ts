import type { Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start } from '@acme/identity';

/** The identity service on `db`, on two free loopback ports, with `env` on top of the bench's defaults. */
export async function identityService(db: Database, env: Record<string, string> = {}) {
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const service = await start({
    db,
    logger: false,
    env: {
      IDENTITY_PUBLIC_PORT: String(publicPort),
      IDENTITY_ADMIN_PORT: String(adminPort),
      IDENTITY_MANAGEMENT_PORT: '0',
      IDENTITY_PUBLIC_URL: publicUrl,
      IDENTITY_ADMIN_URL: adminUrl,
      ...env,
    },
  });
  return { service, publicUrl, adminUrl };
}
