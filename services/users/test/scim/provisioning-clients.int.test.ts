import { sql } from '@acme/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../harness.ts';
import { provisioningClient } from './fixtures.ts';
import { startScimStack, type ScimStack } from './scim-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * What Entra ID's and Okta's provisioning services send (fixtures/, each naming its documentation),
 * replayed in the order those services send them, against the real service: the person is
 * created, found, renamed, grouped (the group mapping sets their role and scope groups, which the
 * console then shows as managed by the directory), deactivated, reactivated and deleted.
 */
describe('provisioning clients: Entra ID and Okta request fixtures', () => {
  let stack: ScimStack;

  const member = async (organisationId: string, token: string, userId: string) => {
    const res = await stack.call(token, 'GET', `/console/organisations/${organisationId}/members/${userId}`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const scopeGroupsOf = async (userId: string) =>
    (
      await sql<{ scope_groups: string[] }>`select scope_groups from users where id = ${userId}`.execute(
        stack.db.kysely,
      )
    ).rows[0]!.scope_groups;

  beforeAll(async () => {
    stack = await startScimStack('contoso.test');
    // Contoso signs in by SSO (its provider): people SCIM creates get no invitation.
    const sso = await http(`${stack.svc.adminUrl}/admin/organisations/${stack.organisationId}/sso`, {
      method: 'PUT',
      json: { issuer: 'https://login.contoso.test', clientId: 'contoso', clientSecret: 'contoso-secret' },
    });
    expect(sso.status).toBe(200);
    await sql`update users set scope_groups = '["quant","research"]' where organisation_id = ${stack.organisationId}`.execute(
      stack.db.kysely,
    );
    const settings = await stack.call(
      stack.adminToken,
      'PUT',
      `/console/organisations/${stack.organisationId}/scim/settings`,
      {
        groupMappings: [
          { group: 'Quants', role: 'user', scopeGroups: ['quant'] },
          { group: 'IT admins', role: 'org-admin', scopeGroups: ['research'] },
        ],
      },
    );
    expect(settings.status).toBe(200);
  }, 60_000);
  afterAll(async () => stack?.close());

  it('Entra ID: create, find, update (incl. the non-compliant forms), group mapping, disable, enable, delete', async () => {
    const vars: Record<string, string> = {
      userName: 'ada@contoso.test',
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      groupName: 'Quants',
    };
    const entra = provisioningClient('entra', stack.scim, vars);

    const none = await entra('01-get-user-by-query-zero-results');
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });

    const created = await entra('02-create-user');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userName: 'ada@contoso.test',
      externalId: vars.externalId,
      active: true,
    });
    vars.userId = created.body.id;
    // An SSO organisation: no invitation mail.
    expect(stack.svc.mailer.messages!.filter((m) => m.to === 'ada@contoso.test')).toHaveLength(0);

    const found = await entra('03-get-user-by-query');
    expect(found.body.Resources.map((r: any) => r.id)).toEqual([vars.userId]);

    const multi = await entra('04-update-user-multi-valued');
    expect(multi.status).toBe(200);
    expect(multi.body.name.familyName).toBe('updatedFamilyName');

    // Our userName is the person's address: the directory cannot rename it (documented refusal).
    const renamed = await entra('05-update-user-single-valued-username');
    expect([renamed.status, renamed.body.scimType]).toEqual([400, 'mutability']);

    const dotted = await entra('06-update-user-value-object-dotted');
    expect(dotted.status).toBe(200);
    expect(dotted.body.name).toMatchObject({ givenName: 'Ada', familyName: 'Lovelace' });
    // The identity's name follows (the profile and the console read it there).
    const { identity_id } = (
      await sql<{ identity_id: string }>`select identity_id from users where id = ${vars.userId}`.execute(
        stack.db.kysely,
      )
    ).rows[0]!;
    const identity = await http(`${stack.urls.identityAdmin}/admin/identities/${identity_id}`);
    expect((identity.body as any).traits.name).toEqual({ first: 'Ada', last: 'Lovelace' });

    const group = await entra('07-create-group');
    expect(group.status).toBe(201);
    vars.groupId = group.body.id;
    const byName = await entra('08-get-group-by-display-name');
    expect(byName.body.Resources.map((g: any) => g.id)).toEqual([vars.groupId]);
    expect(byName.body.Resources[0].members).toBeUndefined();

    // In "Quants": a member with the quant scope group, managed by the directory.
    const added = await entra('09-update-group-add-members');
    expect(added.status).toBe(200);
    expect(added.body.members.map((m: any) => m.value)).toEqual([vars.userId]);
    expect(await scopeGroupsOf(vars.userId!)).toEqual(['quant']);
    const managed = await member(stack.organisationId, stack.adminToken, vars.userId!);
    expect(managed).toMatchObject({ role: 'member', managedBy: 'directory' });
    const edit = await stack.call(
      stack.adminToken,
      'POST',
      `/console/organisations/${stack.organisationId}/members/${vars.userId}/role`,
      { role: 'admin' },
    );
    expect([edit.status, edit.body.errorCode]).toEqual([409, 'MANAGED_BY_DIRECTORY']);

    // The group renamed to "IT admins": the mapping makes them an org-admin (never more).
    vars.groupName = 'IT admins';
    const renamedGroup = await entra('10-update-group-non-member-attributes');
    expect(renamedGroup.body.displayName).toBe('IT admins');
    expect((await member(stack.organisationId, stack.adminToken, vars.userId!)).role).toBe('org-admin');
    expect(await scopeGroupsOf(vars.userId!)).toEqual(['research']);

    const removed = await entra('11-update-group-remove-members');
    expect(removed.status).toBe(200);
    expect(removed.body.members ?? []).toEqual([]);
    expect((await member(stack.organisationId, stack.adminToken, vars.userId!)).role).toBe('member');
    expect(await scopeGroupsOf(vars.userId!)).toEqual([]);

    const disabled = await entra('12-disable-user-string-false');
    expect([disabled.status, disabled.body.active]).toEqual([200, false]);
    expect((await member(stack.organisationId, stack.adminToken, vars.userId!)).status).toBe('deactivated');
    const enabled = await entra('13-enable-user');
    expect([enabled.status, enabled.body.active]).toEqual([200, true]);
    expect((await member(stack.organisationId, stack.adminToken, vars.userId!)).status).toBe('active');
    const again = await entra('14-disable-user');
    expect(again.body.active).toBe(false);

    expect((await entra('15-delete-group')).status).toBe(204);
    expect((await entra('16-delete-user')).status).toBe(204);
    expect((await entra('03-get-user-by-query')).body.totalResults).toBe(0);

    const events = await stack.call(
      stack.adminToken,
      'GET',
      `/console/organisations/${stack.organisationId}/events?subjectId=${vars.userId}`,
    );
    const byDirectory = events.body.events.filter((e: any) => e.actorKind === 'directory');
    expect(byDirectory.map((e: any) => e.type)).toEqual(
      expect.arrayContaining([
        'member.deactivated',
        'member.reactivated',
        'member.role_changed',
        'member.deleted',
      ]),
    );
    expect(byDirectory.every((e: any) => e.actorId === stack.scimTokenId)).toBe(true);
  });

  it('Okta: a password organisation: create (with an invitation mail), PUT, groups by name, membership add/remove/replace, deactivate', async () => {
    const orgId = await stack.newOrganisation('okta-co.test');
    const admin = await stack.newUser(orgId, 'okta-co.test', 'org-admin');
    const adminToken = await stack.tokenFor(admin.identityId);
    const { token } = await stack.newScimToken(orgId, adminToken, 'Okta');
    const vars: Record<string, string> = {
      userName: 'test.user@okta-co.test',
      externalId: '00ujl29u0le5T6Aj10h7',
      groupName: 'Test SCIMv2',
    };
    const okta = provisioningClient(
      'okta',
      (method, path, body, options) => stack.scim(method, path, body, { ...options, token }),
      vars,
    );

    expect((await okta('01-determine-if-user-exists')).body.totalResults).toBe(0);
    const created = await okta('02-create-user');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      userName: vars.userName,
      name: { givenName: 'Test', familyName: 'User' },
    });
    expect(JSON.stringify(created.body)).not.toContain('1mz050nq');
    vars.userId = created.body.id;
    expect(stack.svc.mailer.messages!.filter((m) => m.to === vars.userName)).toHaveLength(1);
    const invitations = await stack.call(adminToken, 'GET', `/console/organisations/${orgId}/invitations`);
    expect(invitations.body.invitations.map((i: any) => [i.userId, i.state])).toEqual([
      [vars.userId!, 'pending'],
    ]);

    expect((await okta('03-retrieve-user')).body.id).toBe(vars.userId!);
    const put = await okta('04-update-user-put');
    expect(put.body.name).toMatchObject({ givenName: 'Another', familyName: 'User' });

    const group = await okta('05-create-group');
    expect(group.status).toBe(201);
    vars.groupId = group.body.id;
    expect((await okta('06-retrieve-groups')).body.Resources.map((g: any) => g.id)).toEqual([vars.groupId]);
    vars.groupName = 'Test SCIMv2 renamed';
    expect((await okta('07-update-group-name')).body.displayName).toBe('Test SCIMv2 renamed');
    expect((await okta('08-update-group-membership-add')).body.members.map((m: any) => m.value)).toEqual([
      vars.userId,
    ]);
    expect((await okta('09-update-group-membership-remove')).body.members ?? []).toEqual([]);
    expect((await okta('10-replace-group-members')).body.members.map((m: any) => m.value)).toEqual([
      vars.userId,
    ]);

    const deactivated = await okta('11-deactivate-user');
    expect([deactivated.status, deactivated.body.active]).toEqual([200, false]);
    expect((await okta('12-delete-group')).status).toBe(204);
  });
});
