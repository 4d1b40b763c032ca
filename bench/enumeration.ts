import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start as startIdentity } from '@acme/identity';
import { start as startUsers } from '@acme/users';

/**
 * Account enumeration by timing: for each entry point that takes an address, the median of the
 * paired differences (known address − unknown address, one of each per pair, order alternating)
 * must stay under 5 ms. Entry points: `/login/config` (user service), the password login with a
 * wrong password, and the recovery request (identity service). Both services run in process on a
 * temporary PGlite with the outbox as mailer, as `npm start` runs them; limits that would change
 * the answer part-way (lockout, per-IP, mail budget) are raised so every request takes its full path.
 */

const DOMAIN = 'enum.test';
const KNOWN = `known@${DOMAIN}`;
const KNOWN_ADDRESS = KNOWN;
const UNKNOWN = `nobody@${DOMAIN}`;
const UNKNOWN_ADDRESS = UNKNOWN;
/** An address of an organisation that signs in through its own identity provider (SSO). */
const SSO_DOMAIN = 'sso-enum.test';
const SSO_ADDRESS = `someone@${SSO_DOMAIN}`;
/** An address whose domain belongs to no organisation at all. */
const NO_ORGANISATION = `nobody@unknown-enum.test`;
const PASSWORD = 'Enumeration-Bench-2026!';
const THRESHOLD_MS = 5;

function cookiesOf(res: Response, jar: Map<string, string>): string {
  for (const c of res.headers.getSetCookie()) {
    const pair = c.split(';')[0]!;
    const eq = pair.indexOf('=');
    jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

interface Flow {
  id: string;
  csrf: string;
  cookie: string;
}

async function newFlow(publicUrl: string, kind: 'login' | 'recovery'): Promise<Flow> {
  const jar = new Map<string, string>();
  const res = await fetch(`${publicUrl}/self-service/${kind}/browser`, {
    headers: { accept: 'application/json' },
  });
  const body = (await res.json()) as {
    id: string;
    ui: { nodes: { attributes: { name?: string; value?: string } }[] };
  };
  const csrf = body.ui.nodes.find((n) => n.attributes.name === 'csrf_token')?.attributes.value ?? '';
  return { id: body.id, csrf, cookie: cookiesOf(res, jar) };
}

async function timed(fn: () => Promise<Response>, expect: number[]): Promise<number> {
  const t0 = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  const ms = performance.now() - t0;
  if (!expect.includes(res.status)) throw new Error(`unexpected status ${res.status}`);
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (n: number) => Math.round(n * 100) / 100;

async function pairs(
  count: number,
  probe: (address: string) => Promise<number>,
  [KNOWN, UNKNOWN]: [string, string] = [KNOWN_ADDRESS, UNKNOWN_ADDRESS],
): Promise<Record<string, number | boolean>> {
  const diffs: number[] = [];
  const known: number[] = [];
  const unknown: number[] = [];
  // A few unmeasured rounds first (JIT, connection pool, caches).
  for (let i = 0; i < 5; i++) {
    await probe(KNOWN);
    await probe(UNKNOWN);
  }
  for (let i = 0; i < count; i++) {
    let k: number;
    let u: number;
    if (i % 2 === 0) {
      k = await probe(KNOWN);
      u = await probe(UNKNOWN);
    } else {
      u = await probe(UNKNOWN);
      k = await probe(KNOWN);
    }
    known.push(k);
    unknown.push(u);
    diffs.push(k - u);
  }
  const medianDiff = median(diffs);
  return {
    pairs: count,
    knownMedianMs: round(median(known)),
    unknownMedianMs: round(median(unknown)),
    medianDifferenceMs: round(medianDiff),
    pass: Math.abs(medianDiff) < THRESHOLD_MS,
  };
}

export async function benchEnumeration(opts: { pairs: number }): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'enumeration-bench-'));
  const db = await createDb({ dataDir: dir });
  const [idPublic, idAdmin, usersPublic, usersAdmin] = await Promise.all(
    Array.from({ length: 4 }, () => freePort()),
  );
  const identityPublic = `http://127.0.0.1:${idPublic}`;
  const identityAdmin = `http://127.0.0.1:${idAdmin}`;
  const identity = await startIdentity({
    db,
    logger: false,
    env: {
      IDENTITY_PUBLIC_PORT: String(idPublic),
      IDENTITY_ADMIN_PORT: String(idAdmin),
      IDENTITY_MANAGEMENT_PORT: '0',
      IDENTITY_PUBLIC_URL: identityPublic,
      IDENTITY_ADMIN_URL: identityAdmin,
      IDENTITY_LOCKOUT_THRESHOLD: '100000000',
      IDENTITY_IP_FAILURE_LIMIT: '100000000',
      IDENTITY_CODE_MAIL_LIMIT: '100000000',
      LOG_LEVEL: 'silent',
    },
  });
  const users = await startUsers({
    db,
    logger: false,
    env: {
      USERS_PUBLIC_PORT: String(usersPublic),
      USERS_ADMIN_PORT: String(usersAdmin),
      USERS_MANAGEMENT_PORT: '0',
      IDENTITY_ADMIN_URL: identityAdmin,
      IDENTITY_PUBLIC_URL: identityPublic,
      LOGIN_CONFIG_RATE_LIMIT: '100000000',
      LOG_LEVEL: 'silent',
    },
  });
  try {
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${users.urls.admin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { id: string };
      if (!res.ok) throw new Error(`seeding ${path} failed: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const org = await admin('/admin/organisations', {
      name: 'Enum',
      domains: [DOMAIN],
      products: ['Platform'],
    });
    await admin('/admin/users', {
      organisationId: org.id,
      email: KNOWN,
      firstName: 'Known',
      lastName: 'User',
      role: 'member',
      password: PASSWORD,
    });

    const ssoOrg = await admin('/admin/organisations', {
      name: 'Enum SSO',
      domains: [SSO_DOMAIN],
      products: ['Platform'],
    });
    const sso = await fetch(`${users.urls.admin}/admin/organisations/${ssoOrg.id}/sso`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        issuer: 'https://idp.sso-enum.test',
        clientId: 'enumeration-bench',
        clientSecret: 'enumeration-bench-secret',
        jit: true,
      }),
    });
    if (!sso.ok) throw new Error(`seeding the SSO provider failed: ${sso.status}`);

    const configProbe = (address: string) =>
      timed(
        () => fetch(`${users.urls.public}/login/config?emailAddress=${encodeURIComponent(address)}`),
        [200],
      );
    const loginConfig = await pairs(opts.pairs, configProbe);
    // SSO, password and unknown domains: the same answer shape and the same work.
    const shapeOf = async (address: string) =>
      Object.keys(
        (await (
          await fetch(`${users.urls.public}/login/config?emailAddress=${encodeURIComponent(address)}`)
        ).json()) as object,
      )
        .sort()
        .join(',');
    const shapes = await Promise.all([KNOWN, SSO_ADDRESS, NO_ORGANISATION].map(shapeOf));
    const loginConfigSsoVsUnknownDomain: Record<string, number | boolean> = {
      ...(await pairs(opts.pairs, configProbe, [SSO_ADDRESS, NO_ORGANISATION])),
      sameShape: shapes.every((shape) => shape === shapes[0]),
    };
    const loginConfigPasswordVsSso = await pairs(opts.pairs, configProbe, [KNOWN, SSO_ADDRESS]);

    // One login flow per address, submitted again and again with a wrong password (answer 400).
    const loginFlows: Record<string, Flow> = {
      [KNOWN]: await newFlow(identityPublic, 'login'),
      [UNKNOWN]: await newFlow(identityPublic, 'login'),
    };
    const passwordLogin = await pairs(opts.pairs, (address) => {
      const f = loginFlows[address]!;
      return timed(
        () =>
          fetch(`${identityPublic}/self-service/login?flow=${f.id}`, {
            method: 'POST',
            headers: { accept: 'application/json', 'content-type': 'application/json', cookie: f.cookie },
            body: JSON.stringify({
              method: 'password',
              identifier: address,
              password: 'not the password 1',
              csrf_token: f.csrf,
            }),
          }),
        [400],
      );
    });

    // A fresh recovery flow per request (a sent flow answers differently on its next submit).
    const recoveryRequest = await pairs(opts.pairs, async (address) => {
      const f = await newFlow(identityPublic, 'recovery');
      return timed(
        () =>
          fetch(`${identityPublic}/self-service/recovery?flow=${f.id}`, {
            method: 'POST',
            headers: { accept: 'application/json', 'content-type': 'application/json', cookie: f.cookie },
            body: JSON.stringify({ method: 'code', email: address, csrf_token: f.csrf }),
          }),
        [200],
      );
    });

    return {
      note:
        'Median of paired differences (known − unknown address), one request of each per pair, alternating order, ' +
        `sequential; passes under ${THRESHOLD_MS} ms. Lockout, per-IP and mail limits raised so every request takes its full path.`,
      database: 'pglite (temp dir)',
      // Shared machines add noise of their own: the 1-minute load average when the run ended.
      loadAverage1m: Math.round(loadavg()[0]! * 10) / 10,
      thresholdMs: THRESHOLD_MS,
      loginConfig,
      loginConfigSsoVsUnknownDomain,
      loginConfigPasswordVsSso,
      passwordLogin,
      recoveryRequest,
      pass:
        loginConfigSsoVsUnknownDomain.sameShape === true &&
        [
          loginConfig,
          loginConfigSsoVsUnknownDomain,
          loginConfigPasswordVsSso,
          passwordLogin,
          recoveryRequest,
        ].every((r) => r.pass === true),
    };
  } finally {
    await users.close();
    await identity.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// Direct run: `node --import tsx bench/enumeration.ts [pairs]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchEnumeration({ pairs: Number(process.argv[2] ?? 1000) });
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
