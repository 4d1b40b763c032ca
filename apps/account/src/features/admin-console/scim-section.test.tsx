// @vitest-environment jsdom
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { Router } from '../../app/router.tsx';
import { type MockCall } from '../../testing/fetch-mock.ts';
import { CONSOLE_ORG, consoleAdmin, signedInToConsole, type ConsoleAnswer } from '../../testing/console.ts';
import { goTo, resetScreenBetweenTests } from '../../testing/screen.ts';
import type { ScimGroupMapping, ScimToken } from './console-client.ts';
import { consoleCopy } from './copy.ts';

// The Provisioning (SCIM) section and the directory-managed role on the member page, as the router
// mounts them, against a stand-in for the user service's console API (the scim-server contract).

const t = consoleCopy.scim;
const ORG = CONSOLE_ORG;
const ORG_ADMIN = consoleAdmin(['ViewUsers', 'ManageOrganisationUsers']);
const BASE_URL = 'http://localhost:4003/scim/v2';
const api = `/console/organisations/${ORG}/scim`;
const SECRET = 'scim_0123456789abcdef0123456789abcdef';

type Answer = { status: number; body?: unknown } | undefined;

const signedIn = (more: (call: MockCall) => ConsoleAnswer, me: unknown = ORG_ADMIN) =>
  signedInToConsole(me, more);

/** A stand-in for the SCIM console API: tokens and settings held in memory. */
function scimApi(
  initial: { tokens?: ScimToken[]; mappings?: ScimGroupMapping[]; scopeGroups?: string[] } = {},
) {
  const state = { tokens: [...(initial.tokens ?? [])], mappings: [...(initial.mappings ?? [])] };
  const settings = () => ({
    enabled: state.tokens.length > 0,
    baseUrl: BASE_URL,
    groupMappings: state.mappings,
    scopeGroups: initial.scopeGroups ?? [],
  });
  const handler = ({ url, method, body }: MockCall): Answer => {
    if (url.pathname === `${api}/settings`) {
      if (method === 'PUT') state.mappings = (body as { groupMappings: ScimGroupMapping[] }).groupMappings;
      return { status: 200, body: settings() };
    }
    if (url.pathname === `${api}/tokens` && method === 'GET')
      return { status: 200, body: { tokens: state.tokens } };
    if (url.pathname === `${api}/tokens` && method === 'POST') {
      if (state.tokens.length >= 5) {
        return { status: 409, body: { errorCode: 'LIMIT_REACHED', message: 'At most 5 tokens.' } };
      }
      const token = {
        id: `t${state.tokens.length + 1}`,
        name: (body as { name: string }).name,
        createdAt: '2026-11-26T01:00:00.000Z',
        lastUsedAt: null,
        createdBy: ORG_ADMIN.email,
      };
      state.tokens.push(token);
      return {
        status: 201,
        body: { id: token.id, name: token.name, createdAt: token.createdAt, token: SECRET },
      };
    }
    const revoke = new RegExp(`^${api}/tokens/([^/]+)$`).exec(url.pathname);
    if (revoke && method === 'DELETE') {
      state.tokens = state.tokens.filter((k) => k.id !== revoke[1]);
      return { status: 204 };
    }
    return undefined;
  };
  return { state, handler };
}

const token = (over: Partial<ScimToken> = {}): ScimToken => ({
  id: 't9',
  name: 'Okta',
  createdAt: '2026-11-01T09:00:00.000Z',
  lastUsedAt: '2026-11-25T10:00:00.000Z',
  createdBy: 'lead@acme.test',
  ...over,
});

/** axe's serious and critical violations inside `root` (colour contrast needs a real layout). */
async function seriousViolations(root: Element): Promise<string[]> {
  const results = await axe.run(root, { rules: { 'color-contrast': { enabled: false } } });
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

resetScreenBetweenTests('admin');

describe('the Provisioning (SCIM) section', () => {
  it('creating a token: the name is required, the token is shown once with its warning and the focus, the list refreshes', async () => {
    const { handler } = scimApi();
    const { calls } = signedIn(handler);
    goTo('/admin/scim');
    render(<Router />);
    expect(await screen.findByTestId('scim-base-url')).toHaveProperty('textContent', BASE_URL);
    expect(screen.getByTestId('scim-state').textContent).toBe(t.off);
    expect(await screen.findByText(t.tokens.empty)).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Provisioning (SCIM)' }).getAttribute('aria-current')).toBe(
      'page',
    );

    fireEvent.click(screen.getByRole('button', { name: t.tokens.create }));
    const name = screen.getByLabelText(t.tokens.name);
    expect(await screen.findByText(t.tokens.nameRequired)).toBeTruthy();
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    fireEvent.change(name, { target: { value: ' Entra ID provisioning ' } });
    fireEvent.click(screen.getByRole('button', { name: t.tokens.create }));
    expect((await screen.findByTestId('scim-token')).textContent).toBe(SECRET);
    const once = screen.getByRole('region', { name: t.tokens.tokenHeading });
    expect(once.textContent).toContain("You won't see it again");
    await waitFor(() => expect(document.activeElement?.textContent).toBe(t.tokens.tokenHeading));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ name: 'Entra ID provisioning' });

    // The list and the settings load again: the new token, never used, and provisioning on.
    const row = (await screen.findByRole('cell', { name: 'Entra ID provisioning' })).closest('tr')!;
    expect(within(row).getByText(t.tokens.never)).toBeTruthy();
    expect(within(row).getByText(ORG_ADMIN.email)).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('scim-state').textContent).toBe(t.on));

    // Shown once: after "I have copied the token" it is gone from the page, the focus back on the name.
    fireEvent.click(screen.getByRole('button', { name: t.tokens.done }));
    expect(screen.queryByTestId('scim-token')).toBeNull();
    expect(document.body.textContent).not.toContain(SECRET);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText(t.tokens.name)));
  });

  it('revoking asks first (focus on Cancel); Escape closes and gives the focus back; Yes revokes and the row goes', async () => {
    const { handler } = scimApi({ tokens: [token()] });
    const { calls } = signedIn(handler);
    goTo('/admin/scim');
    render(<Router />);
    const row = (await screen.findByRole('cell', { name: 'Okta' })).closest('tr')!;
    expect(within(row).getByText('lead@acme.test')).toBeTruthy();
    expect(within(row).queryByText(t.tokens.never)).toBeNull();

    const revoke = screen.getByRole('button', { name: t.tokens.revokeNamed('Okta') });
    fireEvent.click(revoke);
    const dialog = screen.getByRole('alertdialog');
    expect(dialog.textContent).toContain(t.tokens.confirmRevoke('Okta'));
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: t.tokens.cancel }));
    fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(revoke));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    fireEvent.click(revoke);
    fireEvent.click(screen.getByRole('button', { name: t.tokens.confirm }));
    expect(await screen.findByText(t.tokens.revoked('Okta'))).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('cell', { name: 'Okta' })).toBeNull());
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.url.pathname)).toEqual([
      `${api}/tokens/t9`,
    ]);
    // The row and its button are gone: the focus lands on the Tokens heading, not on the body.
    await waitFor(() => expect(document.activeElement?.textContent).toBe(t.tokens.heading));
    expect(await screen.findByText(t.tokens.empty)).toBeTruthy();
  });

  it('a sixth token: the limit is explained, no token is shown', async () => {
    const tokens = [1, 2, 3, 4, 5].map((i) => token({ id: `t${i}`, name: `token ${i}` }));
    const { handler } = scimApi({ tokens });
    signedIn(handler);
    goTo('/admin/scim');
    render(<Router />);
    fireEvent.change(await screen.findByLabelText(t.tokens.name), { target: { value: 'one more' } });
    fireEvent.click(screen.getByRole('button', { name: t.tokens.create }));
    expect((await screen.findByRole('alert')).textContent).toBe(t.tokens.limitReached(5));
    expect(screen.queryByTestId('scim-token')).toBeNull();
  });

  it('the group mapping editor: rows added and removed, errors shown per row, the mapping saved', async () => {
    const { handler, state } = scimApi({
      mappings: [{ group: 'Quants', role: 'user', scopeGroups: ['research'] }],
      scopeGroups: ['research', 'risk'],
    });
    const { calls } = signedIn(handler);
    goTo('/admin/scim');
    render(<Router />);
    const first = await screen.findByRole('group', { name: t.mappings.rowLabel(1) });
    expect(within(first).getByLabelText(t.mappings.group)).toHaveProperty('value', 'Quants');
    expect(within(first).getByLabelText('research')).toHaveProperty('checked', true);
    expect(within(first).getByLabelText('risk')).toHaveProperty('checked', false);

    // Two new rows: one a duplicate of Quants, one granting nothing. The new row's group field has the focus.
    fireEvent.click(screen.getByRole('button', { name: t.mappings.add }));
    const second = screen.getByRole('group', { name: t.mappings.rowLabel(2) });
    await waitFor(() => expect(document.activeElement).toBe(within(second).getByLabelText(t.mappings.group)));
    fireEvent.change(within(second).getByLabelText(t.mappings.group), { target: { value: 'quants' } });
    fireEvent.click(screen.getByRole('button', { name: t.mappings.add }));
    const third = screen.getByRole('group', { name: t.mappings.rowLabel(3) });
    await waitFor(() => expect(document.activeElement).toBe(within(third).getByLabelText(t.mappings.group)));
    fireEvent.change(within(third).getByLabelText(t.mappings.group), { target: { value: 'Admins' } });
    fireEvent.change(within(third).getByLabelText(t.mappings.role), { target: { value: 'none' } });
    fireEvent.click(screen.getByRole('button', { name: t.mappings.save }));

    expect((await screen.findByRole('alert')).textContent).toBe(t.mappings.invalid);
    expect(within(first).queryByText(t.mappings.duplicate)).toBeNull();
    expect(within(second).getByText(t.mappings.duplicate)).toBeTruthy();
    expect(within(third).getByText(t.mappings.grantsNothing)).toBeTruthy();
    expect(within(second).getByLabelText(t.mappings.group).getAttribute('aria-invalid')).toBe('true');
    expect(within(first).getByLabelText(t.mappings.group).getAttribute('aria-invalid')).toBeNull();
    // The focus goes to the first row with an error.
    await waitFor(() => expect(document.activeElement).toBe(within(second).getByLabelText(t.mappings.group)));
    expect(calls.some((c) => c.method === 'PUT')).toBe(false);
    expect(await seriousViolations(document.body)).toEqual([]);

    // Fixed: the duplicate row removed (the focus goes to "Add a mapping"), Admins made org-admin with risk.
    fireEvent.click(within(second).getByRole('button', { name: t.mappings.remove(2) }));
    await waitFor(() => expect(document.activeElement?.textContent).toBe(t.mappings.add));
    const admins = screen.getByRole('group', { name: t.mappings.rowLabel(2) });
    expect(within(admins).getByLabelText(t.mappings.group)).toHaveProperty('value', 'Admins');
    fireEvent.change(within(admins).getByLabelText(t.mappings.role), { target: { value: 'org-admin' } });
    fireEvent.click(within(admins).getByLabelText('risk'));
    fireEvent.change(within(admins).getByLabelText(t.mappings.moreScopeGroups), {
      target: { value: 'desk' },
    });
    fireEvent.click(screen.getByRole('button', { name: t.mappings.save }));
    expect(await screen.findByText(t.mappings.saved)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      {
        groupMappings: [
          { group: 'Quants', role: 'user', scopeGroups: ['research'] },
          { group: 'Admins', role: 'org-admin', scopeGroups: ['risk', 'desk'] },
        ],
      },
    ]);
    expect(state.mappings).toHaveLength(2);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it("a scope group the service refuses (not the organisation's) is shown on its row", async () => {
    const { handler } = scimApi({ mappings: [{ group: 'Quants', role: 'user', scopeGroups: ['research'] }] });
    const { calls } = signedIn((call) =>
      call.method === 'PUT'
        ? {
            status: 400,
            body: {
              errorCode: 'INVALID_REQUEST',
              message:
                'The request is invalid: groupMappings.1.scopeGroups: not a scope group of this organisation: desk',
            },
          }
        : handler(call),
    );
    goTo('/admin/scim');
    render(<Router />);
    await screen.findByRole('group', { name: t.mappings.rowLabel(1) });
    fireEvent.click(screen.getByRole('button', { name: t.mappings.add }));
    const second = screen.getByRole('group', { name: t.mappings.rowLabel(2) });
    fireEvent.change(within(second).getByLabelText(t.mappings.group), { target: { value: 'Desk' } });
    fireEvent.change(within(second).getByLabelText(t.mappings.moreScopeGroups), {
      target: { value: 'desk' },
    });
    fireEvent.click(screen.getByRole('button', { name: t.mappings.save }));
    expect((await screen.findByRole('alert')).textContent).toBe(t.mappings.invalid);
    expect(within(second).getByText('not a scope group of this organisation: desk')).toBeTruthy();
    expect(
      within(screen.getByRole('group', { name: t.mappings.rowLabel(1) })).queryByText(/desk/),
    ).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(within(second).getByLabelText(t.mappings.group)));
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(1);
  });

  it('the whole section is axe clean with tokens, the new token and mappings on it', async () => {
    const { handler } = scimApi({
      tokens: [token()],
      mappings: [{ group: 'Quants', role: null, scopeGroups: ['research'] }],
    });
    signedIn(handler);
    goTo('/admin/scim');
    render(<Router />);
    fireEvent.change(await screen.findByLabelText(t.tokens.name), { target: { value: 'Entra' } });
    fireEvent.click(screen.getByRole('button', { name: t.tokens.create }));
    await screen.findByTestId('scim-token');
    await screen.findByRole('group', { name: t.mappings.rowLabel(1) });
    expect(await seriousViolations(document.body)).toEqual([]);
  });

  it('an org-admin without ManageOrganisationUsers sees no Provisioning link and Access Denied at its path', async () => {
    const { calls } = signedIn(() => undefined, { ...ORG_ADMIN, role: 'admin', permissions: ['ViewUsers'] });
    goTo('/admin/scim');
    render(<Router />);
    expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.includes('/scim/'))).toBe(false);
  });
});

const GRACE = {
  id: '22222222-2222-4222-8222-222222222222',
  email: 'grace@acme.test',
  firstName: 'Grace',
  lastName: 'Hopper',
  role: 'org-admin',
  status: 'active',
  createdAt: '2026-01-01T00:00:00.000Z',
  deactivatedAt: null,
};
const DETAIL = {
  identityState: 'active',
  signInMethods: ['oidc'],
  twoFactor: null,
  lastSignIn: null,
  lockout: null,
  recentEvents: [],
};

describe('members whose role the directory manages', () => {
  it('the list and the member page say "Managed by your directory", and the page has no role control', async () => {
    const managed = { ...GRACE, managedBy: 'directory' };
    signedIn(({ url }) => {
      if (url.pathname === `/console/organisations/${ORG}/members`) {
        return {
          status: 200,
          body: { members: [managed], total: 1, totalExact: true, page: 1, pageSize: 25 },
        };
      }
      if (url.pathname === `/console/organisations/${ORG}/members/${GRACE.id}`) {
        return { status: 200, body: { ...managed, ...DETAIL } };
      }
      return undefined;
    });
    goTo('/admin/members');
    render(<Router />);
    const row = (await screen.findByRole('link', { name: 'Grace Hopper' })).closest('tr')!;
    expect(within(row).getByText(t.managedByDirectory)).toBeTruthy();

    fireEvent.click(screen.getByRole('link', { name: 'Grace Hopper' }));
    const role = await screen.findByTestId('member-role');
    expect(role.textContent).toContain(t.managedByDirectory);
    expect(screen.getByText(t.managedNote)).toBeTruthy();
    expect(screen.queryByRole('combobox', { name: 'Role' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Change role' })).toBeNull();
    // The rest of the page stays: deactivation is still the admin's.
    expect(screen.getByRole('button', { name: 'Deactivate' })).toBeTruthy();
  });

  it('a role edit the service refuses with MANAGED_BY_DIRECTORY shows the clear message and the page reloads managed', async () => {
    let managedBy: string | null = null;
    signedIn(({ url, method }) => {
      const member = `/console/organisations/${ORG}/members/${GRACE.id}`;
      if (url.pathname === member) return { status: 200, body: { ...GRACE, managedBy, ...DETAIL } };
      if (url.pathname === `${member}/role` && method === 'POST') {
        // The directory took the role over since the page loaded.
        managedBy = 'directory';
        return {
          status: 409,
          body: { errorCode: 'MANAGED_BY_DIRECTORY', message: 'Managed by the directory.' },
        };
      }
      return undefined;
    });
    goTo(`/admin/member?id=${GRACE.id}`);
    render(<Router />);
    fireEvent.change(await screen.findByRole('combobox', { name: 'Role' }), { target: { value: 'member' } });
    fireEvent.click(screen.getByRole('button', { name: 'Change role' }));
    expect((await screen.findByRole('alert')).textContent).toBe(t.managedRefused);
    await waitFor(() => expect(screen.queryByRole('combobox', { name: 'Role' })).toBeNull());
    expect(screen.getByTestId('member-role').textContent).toContain(t.managedByDirectory);
  });
});

describe('a person the directory removed', () => {
  it('Reactivate is refused with MANAGED_BY_DIRECTORY: the page says the directory removed them', async () => {
    const removed = {
      ...GRACE,
      role: 'member',
      status: 'deactivated',
      deactivatedAt: '2026-11-25T00:00:00.000Z',
    };
    signedIn(({ url, method }) => {
      const member = `/console/organisations/${ORG}/members/${GRACE.id}`;
      if (url.pathname === member) return { status: 200, body: { ...removed, managedBy: null, ...DETAIL } };
      if (url.pathname === `${member}/reactivate` && method === 'POST') {
        return {
          status: 409,
          body: { errorCode: 'MANAGED_BY_DIRECTORY', message: 'Your directory removed this member.' },
        };
      }
      return undefined;
    });
    goTo(`/admin/member?id=${GRACE.id}`);
    render(<Router />);
    fireEvent.click(await screen.findByRole('button', { name: 'Reactivate' }));
    expect((await screen.findByRole('alert')).textContent).toBe(t.removedByDirectory);
    expect(screen.getByTestId('member-status').textContent).toBe('Deactivated');
  });
});

describe('the security events of the directory', () => {
  it('an event a SCIM request caused names "Your directory (SCIM)" as its actor, not the token', async () => {
    const settingsAdmin = {
      ...ORG_ADMIN,
      permissions: [...ORG_ADMIN.permissions, 'ManageOrganisationSettings'],
    };
    signedIn(
      ({ url }) =>
        url.pathname === `/console/organisations/${ORG}/events`
          ? {
              status: 200,
              body: {
                events: [
                  {
                    id: 'e1',
                    occurredAt: '2026-11-26T01:00:00.000Z',
                    type: 'member.deactivated',
                    actorKind: 'directory',
                    actorId: 'a3f1c2d4-0000-4000-8000-000000000001',
                    subjectId: GRACE.id,
                    ip: null,
                    userAgent: null,
                    requestId: null,
                    source: 'users',
                    details: {},
                  },
                ],
                nextCursor: null,
              },
            }
          : undefined,
      settingsAdmin,
    );
    goTo('/admin/events');
    render(<Router />);
    const row = (await screen.findByRole('cell', { name: 'member.deactivated' })).closest('tr')!;
    expect(within(row).getByText(consoleCopy.events.directory)).toBeTruthy();
    expect(row.textContent).not.toContain('a3f1c2d4');
  });
});
