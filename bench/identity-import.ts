import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { pbkdf2Sync, randomBytes, scryptSync } from 'node:crypto';
import { createDb } from '@acme/db';
import { identityService } from './identity-service.ts';
import { runCli } from '../services/users/src/cli-commands.ts';

/**
 * `BENCH_ONLY=import npm run bench`: `npm run admin -- identities:import` of BENCH_IMPORT_IDENTITIES
 * people (default 100,000) from a JSONL file into the identity service, in process on PGlite (temp
 * dir) or PostgreSQL; password hashes cycle through the four imported formats (argon2id, bcrypt,
 * PBKDF2, scrypt). Reports the wall time and identities a second.
 */
export async function benchIdentityImport(opts: { identities: number; databaseUrl?: string }) {
  const dir = await mkdtemp(join(tmpdir(), 'identity-import-bench-'));
  const db = await createDb(opts.databaseUrl ? { url: opts.databaseUrl } : { dataDir: join(dir, 'db') });
  const { service, adminUrl } = await identityService(db);
  try {
    const password = 'an imported password 42';
    const salt = randomBytes(16);
    const hashes = [
      // argon2id (4 MiB, one pass) and bcrypt (cost 4) of the same password, made once elsewhere.
      '$argon2id$v=19$m=4096,t=1,p=1$hI4ENdS5p/Qgaky7KIXBow$b4zz5uiR1RHBpQ8494RxeF11cK5aKs1Zs3HIRckZgvA',
      '$2b$04$2YLwYYBz/AvzYH.9Fgrj4eGf2waoqg0e3S9fMo72K5w10MC9WQnR6',
      `$pbkdf2-sha256$i=1000,l=32$${salt.toString('base64')}$${pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64')}`,
      `$scrypt$ln=1024,r=8,p=1$${salt.toString('base64')}$${scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 }).toString('base64')}`,
    ];
    const file = join(dir, 'people.jsonl');
    const out = createWriteStream(file);
    for (let i = 0; i < opts.identities; i++) {
      const email = `imported-${i}@example.com`;
      const line = JSON.stringify({
        schema_id: 'default',
        traits: { email, name: { first: 'Imported', last: `Person ${i}` } },
        verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
        credentials: { password: { config: { hashed_password: hashes[i % hashes.length] } } },
      });
      if (!out.write(`${line}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');

    let progressLines = 0;
    const started = performance.now();
    const code = await runCli(['identities:import', file], {
      env: { IDENTITY_ADMIN_URL: adminUrl },
      out: () => undefined,
      err: (line) => {
        if (line.startsWith('identities:import: ') && ++progressLines % 10 === 0) console.log(line);
      },
    });
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`identities:import exited with ${code}`);
    const result = {
      database: opts.databaseUrl ? 'PostgreSQL' : 'pglite (temp dir)',
      identities: opts.identities,
      seconds: Math.round(seconds * 10) / 10,
      perSecond: Math.round(opts.identities / seconds),
    };
    console.log(
      `identities:import: ${opts.identities} identities in ${result.seconds} s (${result.perSecond}/s)`,
    );
    return result;
  } finally {
    await service.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}
