import { typed } from '@acme/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpiredEvents, recordEvent, operatorOrigin } from '../../src/events/events.ts';
import type { UsersDb } from '../../src/db-types.ts';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const DAY = 86_400_000;

describe('console API: invitations and the security event log', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  let ada: { id: string; identityId: string };
  let lead: { id: string; identityId: string };
  let grace: { id: string; identityId: string };
  let strangerToken = '';
  let otherInvitation = '';
  const tokens: Record<string, string> = {};
  const base = () => `/console/organisations/${acme}`;
  const tick = () => stack.clock.advance(1000);

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    lead = await stack.newUser(acme, 'acme.test', 'admin');
    grace = await stack.newUser(acme, 'acme.test', 'member');
    const stranger = await stack.newUser(other, 'other.test', 'org-admin');
    tokens.ada = await stack.tokenFor(ada.identityId);
    tokens.lead = await stack.tokenFor(lead.identityId);
    tokens.grace = await stack.tokenFor(grace.identityId);
    strangerToken = await stack.tokenFor(stranger.identityId);
    const invited = await stack.call(strangerToken, 'POST', `/console/organisations/${other}/invitations`, {
      email: 'someone@other.test',
      firstName: 'Some',
      lastName: 'One',
      role: 'member',
    });
    expect(invited.status).toBe(201);
    otherInvitation = invited.body.id;
  }, 60_000);
  afterAll(async () => stack?.close());

  describe('invitations', () => {
    let invitationId = '';

    it('creates an invitation: the mail goes out and member.invited is recorded with it', async () => {
      tick();
      const res = await stack.call(tokens.ada, 'POST', `${base()}/invitations`, {
        email: 'Ivy@Acme.test',
        firstName: 'Ivy',
        lastName: 'Invitee',
        role: 'admin',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        email: 'ivy@acme.test',
        state: 'pending',
        organisationId: acme,
        role: 'admin',
      });
      invitationId = res.body.id;
      expect(stack.svc.mailer.messages!.at(-1)!.to).toBe('ivy@acme.test');
      const events = await stack.call(tokens.ada, 'GET', `${base()}/events?type=member.invited`);
      expect(events.body.events[0]).toMatchObject({
        subjectId: res.body.userId,
        actorId: ada.id,
        details: { role: 'admin' },
      });
      // The mail's link (a recovery code) is a secret: it is in no event.
      const link = /https?:\/\/\S+/.exec(stack.svc.mailer.messages!.at(-1)!.text)![0];
      expect(JSON.stringify(events.body)).not.toContain(new URL(link).searchParams.get('code')!);
    });

    it('lists, resends and revokes, each recorded', async () => {
      const list = await stack.call(tokens.ada, 'GET', `${base()}/invitations`);
      expect(list.body.invitations.map((i: any) => i.id)).toEqual([invitationId]);
      tick();
      const resent = await stack.call(tokens.ada, 'POST', `${base()}/invitations/${invitationId}/resend`);
      expect(resent.status).toBe(200);
      expect(resent.body.sendCount).toBe(2);
      tick();
      const revoked = await stack.call(tokens.ada, 'POST', `${base()}/invitations/${invitationId}/revoke`);
      expect(revoked.body.state).toBe('revoked');
      // The identity service's own events are merged in (on its real clock): the
      // console's two come newest first among the invitation events.
      const events = await stack.call(tokens.ada, 'GET', `${base()}/events?limit=20`);
      const types = events.body.events.map((e: any) => e.type as string);
      expect(types.filter((t: string) => t.startsWith('invitation.')).slice(0, 2)).toEqual([
        'invitation.revoked',
        'invitation.resent',
      ]);
    });

    it('an org-admin may not invite a provider-staff role', async () => {
      const res = await stack.call(tokens.ada, 'POST', `${base()}/invitations`, {
        email: 'boss@acme.test',
        firstName: 'B',
        lastName: 'Oss',
        role: 'super-admin',
      });
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('PERMISSION_DENIED');
    });

    it("refuses another organisation's invitation ids (404) and another organisation's path (403)", async () => {
      for (const action of ['resend', 'revoke']) {
        const res = await stack.call(
          tokens.ada,
          'POST',
          `${base()}/invitations/${otherInvitation}/${action}`,
        );
        expect(res.status).toBe(404);
        expect(res.body.errorCode).toBe('INVITATION_NOT_FOUND');
      }
      const list = await stack.call(tokens.ada, 'GET', `/console/organisations/${other}/invitations`);
      expect(list.status).toBe(403);
      expect(list.body.errorCode).toBe('FORBIDDEN');
      const create = await stack.call(tokens.ada, 'POST', `/console/organisations/${other}/invitations`, {
        email: 'x@other.test',
        firstName: 'X',
        lastName: 'Y',
        role: 'member',
      });
      expect(create.status).toBe(403);
    });

    it('an admin without ManageOrganisationUsers may not list or create invitations', async () => {
      expect((await stack.call(tokens.lead, 'GET', `${base()}/invitations`)).status).toBe(403);
      const res = await stack.call(tokens.grace, 'POST', `${base()}/invitations`, {
        email: 'y@acme.test',
        firstName: 'X',
        lastName: 'Y',
        role: 'member',
      });
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('PERMISSION_DENIED');
    });
  });

  describe('events from the operator API', () => {
    it('an operator role change, an SSO provider and an API client are recorded, without secrets', async () => {
      tick();
      const patched = await http(`${stack.svc.adminUrl}/admin/users/${grace.id}`, {
        method: 'PATCH',
        json: { role: 'admin' },
      });
      expect(patched.status).toBe(200);
      tick();
      const secret = 'sso-client-secret-never-shown';
      const sso = await http(`${stack.svc.adminUrl}/admin/organisations/${acme}/sso`, {
        method: 'PUT',
        json: { issuer: 'https://idp.acme.test', clientId: 'acme-console', clientSecret: secret },
      });
      expect(sso.status).toBe(200);
      tick();
      const client = await http(`${stack.svc.adminUrl}/admin/api-clients`, {
        method: 'POST',
        json: { organisationId: acme, name: '=HYPERLINK("x")', scopeGroups: ['reporting'] },
      });
      expect(client.status).toBe(201);
      tick();
      const revoked = await http(
        `${stack.svc.adminUrl}/admin/api-clients/${(client.body as any).id}/revoke`,
        {
          method: 'POST',
          json: {},
        },
      );
      expect(revoked.status).toBe(200);

      const events = await stack.call(tokens.ada, 'GET', `${base()}/events?limit=4`);
      expect(events.body.events.map((e: any) => [e.type, e.actorKind])).toEqual([
        ['api_client.revoked', 'operator'],
        ['api_client.created', 'operator'],
        ['sso.provider_changed', 'operator'],
        ['member.role_changed', 'operator'],
      ]);
      expect(events.body.events[3].details).toEqual({ from: 'member', to: 'admin' });
      const everything = JSON.stringify(events.body);
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain((client.body as any).clientSecret);

      // CSV: a header, one row per event, a formula-looking name neutralised.
      const csv = await fetch(`${stack.svc.publicUrl}${base()}/events.csv?type=api_client.created`, {
        headers: { authorization: `Bearer ${tokens.ada}` },
      });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toContain('text/csv');
      const lines = (await csv.text()).trimEnd().split('\r\n');
      expect(lines[0]).toBe(
        '"time","type","actor_kind","actor_id","subject_id","ip","user_agent","request_id","source","details"',
      );
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain('api_client.created');
      expect(lines[1]).not.toContain('"=');
    });
  });

  describe('listing', () => {
    it('pages through events newest first with a cursor, and filters by person, type and time', async () => {
      const db = typed<UsersDb>(stack.db);
      const start = new Date('2026-01-01T00:00:00.000Z');
      for (let i = 0; i < 5; i += 1) {
        await recordEvent(
          db,
          operatorOrigin(),
          { organisationId: acme, type: 'member.unlocked', subjectId: lead.id },
          new Date(start.getTime() + i * DAY),
        );
      }
      const first = await stack.call(tokens.ada, 'GET', `${base()}/events?subjectId=${lead.id}&limit=2`);
      expect(first.body.events.map((e: any) => e.occurredAt)).toEqual([
        '2026-01-05T00:00:00.000Z',
        '2026-01-04T00:00:00.000Z',
      ]);
      const second = await stack.call(
        tokens.ada,
        'GET',
        `${base()}/events?subjectId=${lead.id}&limit=2&cursor=${first.body.nextCursor}`,
      );
      expect(second.body.events.map((e: any) => e.occurredAt)).toEqual([
        '2026-01-03T00:00:00.000Z',
        '2026-01-02T00:00:00.000Z',
      ]);
      const last = await stack.call(
        tokens.ada,
        'GET',
        `${base()}/events?subjectId=${lead.id}&limit=2&cursor=${second.body.nextCursor}`,
      );
      expect(last.body.events).toHaveLength(1);
      expect(last.body.nextCursor).toBeNull();
      const window = await stack.call(
        tokens.ada,
        'GET',
        `${base()}/events?subjectId=${lead.id}&from=2026-01-02T00:00:00.000Z&to=2026-01-04T00:00:00.000Z`,
      );
      expect(window.body.events).toHaveLength(2);
      // Another organisation's events never show, whatever the filter.
      const foreign = await stack.call(
        strangerToken,
        'GET',
        `/console/organisations/${other}/events?subjectId=${lead.id}`,
      );
      expect(foreign.status).toBe(200);
      expect(foreign.body.events).toEqual([]);
    });

    it('needs ManageOrganisationSettings, and the own organisation', async () => {
      const lead403 = await stack.call(tokens.lead, 'GET', `${base()}/events`);
      expect(lead403.status).toBe(403);
      expect(lead403.body.errorCode).toBe('PERMISSION_DENIED');
      const csv403 = await stack.call(tokens.grace, 'GET', `${base()}/events.csv`);
      expect(csv403.status).toBe(403);
      const foreign = await stack.call(strangerToken, 'GET', `${base()}/events.csv`);
      expect(foreign.status).toBe(403);
      expect(foreign.body.errorCode).toBe('FORBIDDEN');
      const anonymous = await stack.call(undefined, 'GET', `${base()}/events.csv`);
      expect(anonymous.status).toBe(401);
    });
  });

  describe('retention', () => {
    it('deletes events older than the retention, in batches, and keeps the rest', async () => {
      const db = typed<UsersDb>(stack.db);
      const now = new Date('2027-06-01T00:00:00.000Z');
      const orgId = other;
      for (let i = 0; i < 7; i += 1) {
        await recordEvent(
          db,
          operatorOrigin(),
          { organisationId: orgId, type: 'member.unlocked', subjectId: null },
          new Date(now.getTime() - (401 + i) * DAY),
        );
      }
      await recordEvent(
        db,
        operatorOrigin(),
        { organisationId: orgId, type: 'member.unlocked', subjectId: null, details: { keep: 'yes' } },
        new Date(now.getTime() - 399 * DAY),
      );
      const before = await db
        .selectFrom('security_events')
        .select('id')
        .where('occurred_at', '<', new Date(now.getTime() - 400 * DAY))
        .execute();
      const deleted = await deleteExpiredEvents(db, now, 400, 3);
      expect(deleted).toBe(before.length);
      expect(deleted).toBeGreaterThanOrEqual(7);
      const left = await db
        .selectFrom('security_events')
        .select(['details'])
        .where('organisation_id', '=', orgId)
        .where('occurred_at', '<', new Date('2026-06-01T00:00:00.000Z'))
        .execute();
      expect(left.map((r) => r.details)).toEqual([{ keep: 'yes' }]);
    });
  });

  describe('the language of an invitation', () => {
    it('follows the inviting admin’s traits.locale when the invitee has none', async () => {
      const identityAdmin = createIdentityAdminClient({ baseUrl: stack.urls.identityAdmin });
      await identityAdmin.patchIdentity(ada.identityId, [{ op: 'add', path: '/traits/locale', value: 'de' }]);
      try {
        const res = await stack.call(tokens.ada, 'POST', `${base()}/invitations`, {
          email: 'sprache@acme.test',
          firstName: 'Greta',
          lastName: 'Sprache',
          role: 'member',
        });
        expect(res.status).toBe(201);
        const mail = stack.svc.mailer.messages!.at(-1)!;
        expect(mail.to).toBe('sprache@acme.test');
        expect(mail.subject).toMatch(/ hat Sie zu .+ eingeladen$/);
        expect(mail.text).toContain('Guten Tag Greta,');
        expect(mail.html).toContain('<html lang="de">');
      } finally {
        await identityAdmin.patchIdentity(ada.identityId, [{ op: 'remove', path: '/traits/locale' }]);
      }
    });
  });
});
