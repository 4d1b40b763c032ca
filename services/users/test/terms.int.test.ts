import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import { createTestDb } from '@acme/db';
import type { Database } from '@acme/db';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, recordingServer, startTestService } from './harness.ts';
import type { RecordingServer, TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const APP = 'http://localhost:4000';
const both = (terms: string, privacy: string) => ({
  documents: [
    { document: 'terms', version: terms },
    { document: 'privacy', version: privacy },
  ],
});

describe('terms of service and privacy policy', () => {
  let identity: IdentityUnderTest;
  let oauth2: RecordingServer;
  let db: Database;
  /** The service as deployed with the 2026-01 documents. */
  let v1: TestUsersService;
  /** The same database after the terms changed to 2026-02 (a new deployment). */
  let v2: TestUsersService;
  let orgId: string;

  beforeAll(async () => {
    identity = await startIdentityUnderTest();
    // Consent requests name the identity in the challenge: `consent-<identityId>`.
    oauth2 = await recordingServer((req) => {
      const subject = String(req.query.consent_challenge ?? '').replace(/^consent-/, '');
      // The platform's own application: its consent is the platform's to give (skip_consent).
      const client = { client_id: 'platform', skip_consent: true };
      if (req.method === 'GET')
        return { status: 200, body: { subject, client, requested_scope: ['openid'] } };
      return { status: 200, body: { redirect_to: 'http://localhost:4444/oauth2/auth?consent_verifier=v' } };
    });
    db = await createTestDb();
    const env = {
      IDENTITY_ADMIN_URL: identity.adminUrl,
      IDENTITY_PUBLIC_URL: identity.publicUrl,
      OAUTH2_ADMIN_URL: oauth2.url,
    };
    v1 = await startTestService({ db, env: { ...env, TERMS_URL: 'https://acme.example/terms?v=1' } });
    v2 = await startTestService({ db, clock: v1.clock, env: { ...env, TERMS_VERSION: '2026-02' } });
    const org = await http(`${v1.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Acme', domains: ['acme.test'], products: ['Platform'] },
    });
    orgId = (org.body as any).id;
  });
  afterAll(async () => {
    await v1.close();
    await v2.close();
    await db.close();
    await identity.close();
    await oauth2.close();
  });
  beforeEach(() => {
    identity.requests.length = 0;
    identity.failures.clear();
  });

  let seq = 0;
  async function invitedUser() {
    seq += 1;
    const inv = await http(`${v1.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: `t${seq}@acme.test`,
        firstName: 'T',
        lastName: 'U',
        role: 'member',
      },
    });
    const body = inv.body as any;
    return { ...body, cookie: await identity.signIn(body.identityId) };
  }
  const accept = (svc: TestUsersService, cookie: string | undefined, json: unknown, headers = {}) =>
    http(`${svc.publicUrl}/terms/accept`, {
      method: 'POST',
      headers: { ...(cookie ? { cookie } : {}), origin: APP, ...headers },
      json,
    });
  const traits = async (identityId: string) => (await identity.identity(identityId)).traits.onboarding;
  const consent = async (svc: TestUsersService, identityId: string, cookie: string) =>
    http(`${svc.publicUrl}/login/consent`, {
      method: 'POST',
      json: {
        consentChallenge: `consent-${identityId}`,
        identitySessionId: await identity.sessionIdOf(cookie),
      },
    });

  it('GET /terms/current answers the configured versions and links', async () => {
    const res = await http(`${v1.publicUrl}/terms/current`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      terms: { version: '2026-01', url: 'https://acme.example/terms?v=1' },
      privacy: { version: '2026-01', url: `${APP}/account/privacy` },
    });
    expect(((await http(`${v2.publicUrl}/terms/current`)).body as any).terms).toEqual({
      version: '2026-02',
      url: `${APP}/account/terms`,
    });
  });

  it('records each acceptance; tosAccepted follows once both current documents are accepted', async () => {
    const user = await invitedUser();
    const first = await accept(
      v1,
      user.cookie,
      { documents: [{ document: 'terms', version: '2026-01' }] },
      {
        'user-agent': 'Browser/1.0',
      },
    );
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ tosAccepted: false });
    expect((await traits(user.identityId)).tosAccepted).toBe(false);
    expect(identity.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);

    const second = await accept(v1, user.cookie, {
      documents: [{ document: 'privacy', version: '2026-01' }],
    });
    expect(second.body).toEqual({ tosAccepted: true });
    expect((await traits(user.identityId)).tosAccepted).toBe(true);

    const rows = await sql<any>`select document, version, accepted_at, ip_address, user_agent, source
      from terms_acceptances where user_id = ${user.userId} order by document desc`.execute(db.kysely);
    expect(rows.rows).toEqual([
      {
        document: 'terms',
        version: '2026-01',
        accepted_at: new Date('2026-03-01T09:00:00.000Z'),
        ip_address: '127.0.0.1',
        user_agent: 'Browser/1.0',
        source: 'user',
      },
      expect.objectContaining({ document: 'privacy', version: '2026-01', source: 'user' }),
    ]);
  });

  it('refuses a stale version with 409 TERMS_VERSION_OUTDATED and records nothing', async () => {
    const user = await invitedUser();
    const res = await accept(v2, user.cookie, both('2026-01', '2026-01'));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      errorCode: 'TERMS_VERSION_OUTDATED',
      message: expect.stringContaining('2026-02'),
    });
    const rows =
      await sql<any>`select count(*)::int as c from terms_acceptances where user_id = ${user.userId}`.execute(
        db.kysely,
      );
    expect(rows.rows[0].c).toBe(0);
  });

  it('asks again at the next sign-in when a version changed (terms versioning)', async () => {
    const user = await invitedUser();
    expect((await accept(v1, user.cookie, both('2026-01', '2026-01'))).body).toEqual({ tosAccepted: true });

    // Signing in while 2026-01 is current changes nothing.
    const same = await consent(v1, user.identityId, user.cookie);
    expect(same.status).toBe(200);
    expect(identity.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);

    // The terms change: at the next sign-in the identity is sent back to the Terms step…
    const bumped = await consent(v2, user.identityId, user.cookie);
    expect(bumped.status).toBe(200);
    expect(bumped.body).toEqual({ redirectTo: expect.any(String) });
    expect((await traits(user.identityId)).tosAccepted).toBe(false);

    // …where the current versions are accepted…
    expect((await accept(v2, user.cookie, both('2026-02', '2026-01'))).body).toEqual({ tosAccepted: true });
    expect((await traits(user.identityId)).tosAccepted).toBe(true);

    // …and the sign-in after that leaves it alone.
    identity.requests.length = 0;
    await consent(v2, user.identityId, user.cookie);
    expect(identity.requests.filter((r) => r.method === 'PATCH')).toHaveLength(0);
    expect((await traits(user.identityId)).tosAccepted).toBe(true);
  });

  it('users an operator created with a password count as accepted, until the version changes', async () => {
    const res = await http(`${v1.adminUrl}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: 'operator-made@acme.test',
        firstName: 'O',
        lastName: 'M',
        role: 'member',
        password: 'Research-Demo-2026!',
      },
    });
    const user = res.body as any;
    expect((await traits(user.identityId)).tosAccepted).toBe(true);
    const cookie = await identity.signIn(user.identityId);
    await consent(v1, user.identityId, cookie);
    expect((await traits(user.identityId)).tosAccepted).toBe(true);
    await consent(v2, user.identityId, cookie);
    expect((await traits(user.identityId)).tosAccepted).toBe(false);
  });

  it('needs a signed-in, linked caller', async () => {
    const body = both('2026-01', '2026-01');
    const none = await accept(v1, undefined, body);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) });
    const unknownCookie = await accept(v1, 'ory_kratos_session=nope', body);
    expect(unknownCookie.status).toBe(401);

    const user = await invitedUser();
    const aal = await accept(v1, await identity.signIn(user.identityId, { aal2Required: true }), body);
    expect(aal.status).toBe(403);
    expect((aal.body as any).errorCode).toBe('SECOND_FACTOR_REQUIRED');

    // An identity the user service does not know (not linked to a user).
    const { id: stray } = await identity.admin.createIdentity({
      schema_id: 'default',
      traits: { userServiceID: '00000000-0000-4000-8000-000000000001', email: 'x@acme.test' },
    });
    const unlinked = await accept(v1, await identity.signIn(stray), body);
    expect(unlinked.status).toBe(403);
    expect((unlinked.body as any).errorCode).toBe('USER_NOT_LINKED');

    identity.failures.set('/sessions/whoami', 500);
    const down = await accept(v1, user.cookie, body);
    expect(down.status).toBe(502);
    expect((down.body as any).errorCode).toBe('UPSTREAM_ERROR');
  });

  it('refuses malformed bodies with 400 INVALID_REQUEST before asking who is calling', async () => {
    const bodies: unknown[] = [
      {},
      { documents: [] },
      { documents: [{ document: 'cookies', version: '2026-01' }] },
      { documents: [{ document: 'terms' }] },
      { documents: [{ document: 'terms', version: '' }] },
      {
        documents: [
          { document: 'terms', version: '2026-01' },
          { document: 'terms', version: '2026-01' },
        ],
      },
      { documents: [{ document: 'terms', version: '2026-01' }], extra: true },
      { documents: 'terms' },
      [1, 2],
      null,
    ];
    for (const json of bodies) {
      const res = await accept(v1, undefined, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
    }
    expect(identity.requests.filter((r) => r.path === '/sessions/whoami')).toHaveLength(0);
  });

  it('allows the app origins with credentials (CORS) and no others', async () => {
    const preflight = await fetch(`${v1.publicUrl}/terms/accept`, {
      method: 'OPTIONS',
      headers: {
        origin: APP,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(APP);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    const evil = await fetch(`${v1.publicUrl}/terms/current`, { headers: { origin: 'http://evil.test' } });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('exports the records as JSON and as CSV (header row, quoting, no formulas), per organisation', async () => {
    const other = await http(`${v1.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Initech', domains: ['initech.test'], products: [] },
    });
    const otherId = (other.body as any).id;
    const inv = (
      await http(`${v1.adminUrl}/admin/invitations`, {
        method: 'POST',
        json: {
          organisationId: otherId,
          email: 'csv@initech.test',
          firstName: 'C',
          lastName: 'S',
          role: 'member',
        },
      })
    ).body as any;
    const cookie = await identity.signIn(inv.identityId);
    await accept(v1, cookie, both('2026-01', '2026-01'), { 'user-agent': '=HYPERLINK("x"), "quoted"' });

    const json = await http(`${v1.adminUrl}/admin/terms/acceptances?organisationId=${otherId}&format=json`);
    expect(json.status).toBe(200);
    expect((json.body as any).acceptances).toEqual([
      {
        id: expect.any(String),
        userId: inv.userId,
        email: 'csv@initech.test',
        organisationId: otherId,
        document: 'privacy',
        version: '2026-01',
        acceptedAt: '2026-03-01T09:00:00.000Z',
        ipAddress: '127.0.0.1',
        userAgent: expect.stringContaining('HYPERLINK'),
        source: 'user',
      },
      expect.objectContaining({ document: 'terms', email: 'csv@initech.test' }),
    ]);

    const res = await fetch(`${v1.adminUrl}/admin/terms/acceptances?organisationId=${otherId}&format=csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const csv = await res.text();
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      '"id","userId","email","organisationId","document","version","acceptedAt","ipAddress","userAgent","source"',
    );
    expect(csv).toContain(
      `,"csv@initech.test","${otherId}","privacy","2026-01","2026-03-01T09:00:00.000Z","127.0.0.1","'=HYPERLINK(""x""), ""quoted""","user"\r\n`,
    );
    expect(csv.endsWith('"user"\r\n')).toBe(true);

    const all = (await http(`${v1.adminUrl}/admin/terms/acceptances`)).body as any;
    expect(all.acceptances.length).toBeGreaterThan(2);
    for (const bad of ['format=xml', 'organisationId=nope', 'other=1']) {
      const res = await http(`${v1.adminUrl}/admin/terms/acceptances?${bad}`);
      expect(res.status, bad).toBe(400);
    }
  });
});
