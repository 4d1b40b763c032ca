import { Writable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from '@acme/db';
import { createMailer, migrateMail } from '@acme/mail';
import { createTestDb } from '@acme/db';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const HOUR = 3_600_000;

describe('invitations: admin API, lifecycle and the app-facing status', () => {
  let identityService: IdentityUnderTest;
  let svc: TestUsersService;
  let orgId: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    identityService = await startIdentityUnderTest();
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          logLines.push(chunk.toString('utf8'));
          done();
        },
      }),
    );
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identityService.adminUrl,
        IDENTITY_PUBLIC_URL: identityService.publicUrl,
        APP_BASE_URL: 'http://localhost:4001/ignored-path',
        INVITATION_TTL_HOURS: '48',
        INVITATION_STATUS_RATE_LIMIT: '1000',
      },
      logger,
    });
    const org = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Acme & Co', domains: ['acme.test'], products: ['Platform'] },
    });
    orgId = (org.body as any).id;
  });
  afterAll(async () => {
    await svc.close();
    await identityService.close();
  });
  beforeEach(() => {
    identityService.requests.length = 0;
    identityService.failures.delete('/admin/recovery/code');
  });

  let seq = 0;
  const invite = (extra: Record<string, unknown> = {}) => {
    seq += 1;
    return http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: `invitee${seq}@acme.test`,
        firstName: 'Ivy',
        lastName: 'Invitee',
        role: 'member',
        ...extra,
      },
    });
  };
  const messages = () => svc.mailer.messages!;
  const lastMail = () => messages().at(-1)!;
  const linkOf = (text: string) => new URL(/https?:\/\/\S+/.exec(text)![0]);
  const status = (flow: string) =>
    http(`${svc.publicUrl}/invitations/status?flow=${encodeURIComponent(flow)}`);
  const listed = async (id: string) =>
    ((await http(`${svc.adminUrl}/admin/invitations?organisationId=${orgId}`)).body as any).invitations.find(
      (i: any) => i.id === id,
    );

  it('creates the user, a password-less identity, a recovery code and the email; answers without the code', async () => {
    const before = messages().length;
    const res = await invite({ isGitUser: true });
    expect(res.status).toBe(201);
    const inv = res.body as any;
    expect(inv).toMatchObject({
      id: expect.any(String),
      state: 'pending',
      organisationId: orgId,
      userId: expect.any(String),
      identityId: expect.any(String),
      email: `invitee${seq}@acme.test`,
      role: 'member',
      createdAt: '2026-03-01T09:00:00.000Z',
      expiresAt: '2026-03-03T09:00:00.000Z',
      sendCount: 1,
      acceptedAt: null,
      revokedAt: null,
    });

    const identity = await identityService.identity(inv.identityId);
    expect(identity.traits).toEqual({
      userServiceID: inv.userId,
      email: inv.email,
      name: { first: 'Ivy', last: 'Invitee' },
      onboarding: {
        isGitUser: true,
        mfaSetupDeadline: '2026-03-15T09:00:00.000Z',
        gitProviderConnected: false,
        tosAccepted: false,
      },
    });
    const addresses = identity.verifiable_addresses.map(({ value, verified }: any) => ({ value, verified }));
    expect(addresses).toEqual([{ value: inv.email, verified: false }]);
    const create = identityService.requests.find((r) => r.path === '/admin/identities')!;
    expect((create.body as any).credentials).toBeUndefined();

    const code = identityService.recoveryCodes.at(-1)!;
    expect(code).toMatchObject({ identityId: inv.identityId, expiresIn: '48h' });

    expect(messages()).toHaveLength(before + 1);
    const mail = lastMail();
    expect(mail.to).toBe(inv.email);
    expect(mail.subject).toBe('Acme & Co invited you to Platform');
    const link = linkOf(mail.text);
    expect(`${link.origin}${link.pathname}`).toBe('http://localhost:4001/account/onboarding');
    expect(link.searchParams.get('flow')).toBe(code.flowId);
    expect(link.searchParams.get('code')).toBe(code.code);
    expect(mail.html).toContain('Acme &amp; Co');

    // The code is only in the email: never in the answer, the listing or the logs.
    expect(JSON.stringify(res.body)).not.toContain(code.code);
    const list = await http(`${svc.adminUrl}/admin/invitations`);
    expect(JSON.stringify(list.body)).not.toContain(code.code);
    expect(logLines.join('')).not.toContain(code.code);
    expect(logLines.join('')).toContain('invitation created');

    const got = await http(`${svc.adminUrl}/admin/invitations/${inv.id}`);
    expect(got.body).toEqual(inv);
    expect((await status(code.flowId)).body).toEqual({ state: 'pending' });
  });

  it('shows expired past its expiry (injected clock); resend issues a fresh link and kills the old one', async () => {
    const inv = (await invite()).body as any;
    const first = identityService.recoveryCodes.at(-1)!;
    svc.clock.advance(48 * HOUR);
    try {
      expect((await listed(inv.id)).state).toBe('expired');
      expect((await status(first.flowId)).body).toEqual({ state: 'expired' });

      const resent = await http(`${svc.adminUrl}/admin/invitations/${inv.id}/resend`, { method: 'POST' });
      expect(resent.status).toBe(200);
      expect(resent.body).toMatchObject({
        id: inv.id,
        state: 'pending',
        sendCount: 2,
        lastSentAt: '2026-03-03T09:00:00.000Z',
        expiresAt: '2026-03-05T09:00:00.000Z',
      });
      const second = identityService.recoveryCodes.at(-1)!;
      expect(second.flowId).not.toBe(first.flowId);
      expect(linkOf(lastMail().text).searchParams.get('flow')).toBe(second.flowId);
      expect(lastMail().to).toBe(inv.email);
      expect((await status(second.flowId)).body).toEqual({ state: 'pending' });
      expect((await status(first.flowId)).body).toEqual({ state: 'expired' });
      // The grace period starts again with the new link.
      expect((await identityService.identity(inv.identityId)).traits.onboarding.mfaSetupDeadline).toBe(
        '2026-03-17T09:00:00.000Z',
      );

      // A resend of a still-pending invitation also supersedes the link before it.
      await http(`${svc.adminUrl}/admin/invitations/${inv.id}/resend`, { method: 'POST' });
      expect((await status(second.flowId)).body).toEqual({ state: 'expired' });
      expect((await listed(inv.id)).sendCount).toBe(3);
    } finally {
      svc.clock.advance(-48 * HOUR);
    }
  });

  it('the mail is in the invitee’s locale when their identity has one, else English (no person invites through the admin API)', async () => {
    const inv = (await invite()).body as any;
    expect(lastMail().subject).toBe('Acme & Co invited you to Platform');
    expect(lastMail().html).toContain('<html lang="en">');
    await createIdentityAdminClient({ baseUrl: identityService.adminUrl }).patchIdentity(inv.identityId, [
      { op: 'add', path: '/traits/locale', value: 'de' },
    ]);
    const resent = await http(`${svc.adminUrl}/admin/invitations/${inv.id}/resend`, { method: 'POST' });
    expect(resent.status).toBe(200);
    expect(lastMail().to).toBe(inv.email);
    expect(lastMail().subject).toBe('Acme & Co hat Sie zu Platform eingeladen');
    expect(lastMail().text).toContain('Guten Tag Ivy,');
    expect(lastMail().html).toContain('<html lang="de">');
  });

  it('revoke: the state and the link say revoked, the identity is deactivated and its sessions end', async () => {
    const inv = (await invite()).body as any;
    const code = identityService.recoveryCodes.at(-1)!;
    const cookie = await identityService.signIn(inv.identityId);
    const revoked = await http(`${svc.adminUrl}/admin/invitations/${inv.id}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ state: 'revoked', revokedAt: '2026-03-01T09:00:00.000Z' });
    expect((await status(code.flowId)).body).toEqual({ state: 'revoked' });
    expect((await listed(inv.id)).state).toBe('revoked');
    expect((await identityService.identity(inv.identityId)).state).toBe('inactive');
    expect(
      identityService.requests.some(
        (r) => r.method === 'DELETE' && r.path === `/admin/identities/${inv.identityId}/sessions`,
      ),
    ).toBe(true);
    // A session obtained before cannot accept the terms any more.
    const accept = await http(`${svc.publicUrl}/terms/accept`, {
      method: 'POST',
      headers: { cookie },
      json: {
        documents: [
          { document: 'terms', version: '2026-01' },
          { document: 'privacy', version: '2026-01' },
        ],
      },
    });
    expect(accept.status).toBe(401);

    // Idempotent; a resend re-invites (identity active again, new link).
    const again = await http(`${svc.adminUrl}/admin/invitations/${inv.id}/revoke`, { method: 'POST' });
    expect(again.status).toBe(200);
    expect((again.body as any).revokedAt).toBe('2026-03-01T09:00:00.000Z');
    const resent = await http(`${svc.adminUrl}/admin/invitations/${inv.id}/resend`, { method: 'POST' });
    expect(resent.body).toMatchObject({ state: 'pending', revokedAt: null });
    expect((await identityService.identity(inv.identityId)).state).toBe('active');
    expect((await status(code.flowId)).body).toEqual({ state: 'expired' });
    expect((await status(identityService.recoveryCodes.at(-1)!.flowId)).body).toEqual({ state: 'pending' });
  });

  it('is accepted when the invited person accepts the current terms; then it can be neither resent nor revoked', async () => {
    const inv = (await invite()).body as any;
    const code = identityService.recoveryCodes.at(-1)!;
    const cookie = await identityService.signIn(inv.identityId);
    const accept = await http(`${svc.publicUrl}/terms/accept`, {
      method: 'POST',
      headers: { cookie, 'user-agent': 'vitest' },
      json: {
        documents: [
          { document: 'terms', version: '2026-01' },
          { document: 'privacy', version: '2026-01' },
        ],
      },
    });
    expect(accept.status).toBe(200);
    expect(accept.body).toEqual({ tosAccepted: true });
    const identity = await identityService.identity(inv.identityId);
    expect(identity.traits.onboarding.tosAccepted).toBe(true);
    expect(identity.verifiable_addresses[0]!.verified).toBe(true);
    expect(await listed(inv.id)).toMatchObject({ state: 'accepted', acceptedAt: '2026-03-01T09:00:00.000Z' });
    expect((await status(code.flowId)).body).toEqual({ state: 'accepted' });

    for (const action of ['resend', 'revoke']) {
      const res = await http(`${svc.adminUrl}/admin/invitations/${inv.id}/${action}`, { method: 'POST' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ errorCode: 'INVITATION_ACCEPTED', message: expect.any(String) });
    }
    // Accepted stays accepted, even past the link's expiry.
    svc.clock.advance(100 * HOUR);
    try {
      expect((await listed(inv.id)).state).toBe('accepted');
    } finally {
      svc.clock.advance(-100 * HOUR);
    }
  });

  it('refuses bad input with the documented errors', async () => {
    const cases: [unknown, number, string][] = [
      [{}, 400, 'INVALID_REQUEST'],
      [
        { organisationId: orgId, email: 'x@acme.test', firstName: 'X', lastName: 'Y' },
        400,
        'INVALID_REQUEST',
      ],
      [
        {
          organisationId: orgId,
          email: 'x@acme.test',
          firstName: 'X',
          lastName: 'Y',
          role: 'member',
          password: 'Secret-1!',
        },
        400,
        'INVALID_REQUEST',
      ],
      [
        { organisationId: orgId, email: 'nope', firstName: 'X', lastName: 'Y', role: 'member' },
        400,
        'INVALID_REQUEST',
      ],
      [
        { organisationId: orgId, email: 'x@other.test', firstName: 'X', lastName: 'Y', role: 'member' },
        400,
        'EMAIL_DOMAIN_MISMATCH',
      ],
      [
        {
          organisationId: '00000000-0000-4000-8000-000000000999',
          email: 'x@acme.test',
          firstName: 'X',
          lastName: 'Y',
          role: 'member',
        },
        404,
        'ORGANISATION_NOT_FOUND',
      ],
    ];
    for (const [json, code, errorCode] of cases) {
      const res = await http(`${svc.adminUrl}/admin/invitations`, { method: 'POST', json });
      expect(res.status, JSON.stringify(json)).toBe(code);
      expect(res.body).toEqual({ errorCode, message: expect.any(String) });
    }
    const raw = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"organisationId":',
    });
    expect(raw.status).toBe(400);
    const typed = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(typed.status).toBe(415);

    const existing = (await invite()).body as any;
    const dup = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: { organisationId: orgId, email: existing.email, firstName: 'A', lastName: 'B', role: 'member' },
    });
    expect(dup.status).toBe(409);
    expect((dup.body as any).errorCode).toBe('USER_EXISTS');

    for (const id of ['00000000-0000-4000-8000-000000000999', 'not-a-uuid']) {
      for (const path of [
        `/admin/invitations/${id}`,
        `/admin/invitations/${id}/resend`,
        `/admin/invitations/${id}/revoke`,
      ]) {
        const res = await http(`${svc.adminUrl}${path}`, { method: path.endsWith(id) ? 'GET' : 'POST' });
        expect(res.status, path).toBe(404);
        expect((res.body as any).errorCode).toBe('INVITATION_NOT_FOUND');
      }
    }
    expect((await http(`${svc.adminUrl}/admin/invitations?organisationId=nope`)).status).toBe(400);
    expect((await http(`${svc.publicUrl}/invitations/status`)).status).toBe(400);
    const unknown = await status('00000000-0000-4000-8000-000000000999');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ errorCode: 'INVITATION_NOT_FOUND', message: expect.any(String) });
  });

  it('leaves no user or identity behind when the recovery code cannot be created', async () => {
    identityService.failures.set('/admin/recovery/code', 500);
    const before = (await identityService.admin.listIdentities()).length;
    const res = await invite();
    expect(res.status).toBe(502);
    expect((res.body as any).errorCode).toBe('UPSTREAM_ERROR');
    expect((await identityService.admin.listIdentities()).length).toBe(before);
    const users = await sql<{
      c: number;
    }>`select count(*)::int as c from users where email = ${`invitee${seq}@acme.test`}`.execute(
      svc.db.kysely,
    );
    expect(users.rows[0]!.c).toBe(0);
    identityService.failures.delete('/admin/recovery/code');
    // The same invitation can then be made.
    const retry = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: `invitee${seq}@acme.test`,
        firstName: 'I',
        lastName: 'V',
        role: 'member',
      },
    });
    expect(retry.status).toBe(201);
  });

  it('invites a user who never onboarded (e.g. left by an interrupted invitation), never one who did', async () => {
    const bare = await http(`${svc.adminUrl}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: 'bare@acme.test',
        firstName: 'Bare',
        lastName: 'User',
        role: 'admin',
      },
    });
    const user = bare.body as any;
    const inv = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: 'bare@acme.test',
        firstName: 'Other',
        lastName: 'Name',
        role: 'member',
        isGitUser: true,
      },
    });
    expect(inv.status).toBe(201);
    expect(inv.body).toMatchObject({
      userId: user.id,
      identityId: user.identityId,
      firstName: 'Bare',
      role: 'admin',
    });
    expect((await identityService.identity(user.identityId)).traits.onboarding).toMatchObject({
      isGitUser: true,
      mfaSetupDeadline: '2026-03-15T09:00:00.000Z',
    });
    expect(lastMail().to).toBe('bare@acme.test');
    // Now it has an invitation: a second one is refused.
    const again = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: { organisationId: orgId, email: 'bare@acme.test', firstName: 'B', lastName: 'U', role: 'member' },
    });
    expect((again.body as any).errorCode).toBe('USER_EXISTS');

    // A user given a password (terms recorded by the operator) is never re-invited.
    await http(`${svc.adminUrl}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: 'onboarded@acme.test',
        firstName: 'On',
        lastName: 'Boarded',
        role: 'member',
        password: 'Research-Demo-2026!',
      },
    });
    const refused = await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: 'onboarded@acme.test',
        firstName: 'O',
        lastName: 'B',
        role: 'member',
      },
    });
    expect(refused.status).toBe(409);
    expect((refused.body as any).errorCode).toBe('USER_EXISTS');
  });

  it('lists invitations per organisation', async () => {
    const other = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Initech', domains: ['initech.test'], products: ['Platform'] },
    });
    const otherId = (other.body as any).id;
    await http(`${svc.adminUrl}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: otherId,
        email: 'peter@initech.test',
        firstName: 'Peter',
        lastName: 'G',
        role: 'member',
      },
    });
    const mine = (await http(`${svc.adminUrl}/admin/invitations?organisationId=${otherId}`)).body as any;
    expect(mine.invitations.map((i: any) => i.email)).toEqual(['peter@initech.test']);
    const all = (await http(`${svc.adminUrl}/admin/invitations`)).body as any;
    expect(all.invitations.length).toBeGreaterThan(1);
  });
});

describe('invitations: outbox and rate limit', () => {
  it('queues the email in the mail outbox with the invitation, and limits status look-ups per IP', async () => {
    const identityService = await startIdentityUnderTest();
    const db = await createTestDb();
    await migrateMail(db);
    const svc = await startTestService({
      db,
      mailer: createMailer({ db }),
      env: {
        IDENTITY_ADMIN_URL: identityService.adminUrl,
        INVITATION_STATUS_RATE_LIMIT: '3',
      },
    });
    try {
      const org = (
        await http(`${svc.adminUrl}/admin/organisations`, {
          method: 'POST',
          json: { name: 'Acme', domains: ['acme.test'], products: [] },
        })
      ).body as any;
      const inv = await http(`${svc.adminUrl}/admin/invitations`, {
        method: 'POST',
        json: {
          organisationId: org.id,
          email: 'ola@acme.test',
          firstName: 'Ola',
          lastName: 'N',
          role: 'admin',
        },
      });
      expect(inv.status).toBe(201);
      const rows = await sql<{ to: string; text: string }>`select "to", text from mail_outbox`.execute(
        db.kysely,
      );
      expect(rows.rows).toHaveLength(1);
      expect(rows.rows[0]!.to).toBe('ola@acme.test');
      const flow = identityService.recoveryCodes.at(-1)!.flowId;
      expect(rows.rows[0]!.text).toContain(
        `http://localhost:4000/account/onboarding?flow=${flow}&code=${identityService.recoveryCodes.at(-1)!.code}`,
      );

      // 50 at once from one address: the limit's worth (3 here) are answered, the rest refused.
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => http(`${svc.publicUrl}/invitations/status?flow=${flow}`)),
      );
      expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
      const limited = answers.filter((a) => a.status === 429);
      expect(limited).toHaveLength(47);
      for (const res of limited) {
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(res.body).toEqual({ errorCode: 'RATE_LIMITED', message: expect.any(String) });
      }
    } finally {
      await svc.close();
      await db.close();
      await identityService.close();
    }
  });
});
