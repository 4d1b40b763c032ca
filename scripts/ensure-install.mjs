// Installs the workspace's dependencies when they are missing or stale, so that
// `npm start` and `npm test` work on a fresh clone. Plain JavaScript on purpose:
// it runs under whatever Node.js invoked npm, before Node 24 (node_modules/.bin/node) exists.
import { createHash } from 'node:crypto';
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.install-stamp');
const node24 = join(root, 'node_modules', '.bin', 'node');

const digest = () => {
  const hash = createHash('sha256');
  for (const file of [lock, join(root, 'package.json')])
    if (existsSync(file)) hash.update(readFileSync(file));
  return hash.digest('hex');
};

const want = digest();
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (want !== have || !existsSync(node24)) {
  console.log('Installing dependencies (npm ci)…');
  execSync(
    existsSync(lock)
      ? 'npm ci --no-audit --no-fund --loglevel=error'
      : 'npm install --no-audit --no-fund --loglevel=error',
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  writeFileSync(stamp, digest());
}
