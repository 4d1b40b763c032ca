// @vitest-environment jsdom
import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointInput,
  WebhookEndpointPatch,
} from '@acme/users-contract/webhooks';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import { Router } from '../../../app/router.tsx';
import { type MockCall } from '../../../testing/fetch-mock.ts';
import { CONSOLE_ORG, consoleAdmin, signedInToConsole } from '../../../testing/console.ts';
import { goTo, resetScreenBetweenTests } from '../../../testing/screen.ts';
import { consoleCopy } from '../copy.ts';
import { LOADING_INDICATOR_DELAY_MS as SLOW_WAIT_MS } from '../../../constants.ts';
import { DELIVERIES_PAGE_SIZE } from './webhooks-client.ts';

// The Webhooks section as the router mounts it, against an in-memory stand-in that answers as the
// contract (`@acme/users-contract/webhooks`) says the user service does. One rule a row.

const t = consoleCopy.webhooks;
const ORG = CONSOLE_ORG;
const ORG_ADMIN = consoleAdmin(['ViewUsers', 'ManageOrganisationUsers', 'ManageOrganisationSettings']);
const api = `/console/organisations/${ORG}/webhooks`;
const HOOK = 'https://hooks.example.com/acme';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const ROTATED = 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD';

type Answer = { status: number; body?: unknown } | undefined;

const endpoint = (over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: 'e1',
  url: HOOK,
  eventTypes: [],
  state: 'active',
  disabledReason: null,
  createdAt: '2026-11-01T09:00:00.000Z',
  updatedAt: '2026-11-01T09:00:00.000Z',
  ...over,
});

const delivery = (n: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: `d${n}`,
  eventId: `msg_${n}`,
  eventType: 'role.changed',
  status: 'delivered',
  attempts: 1,
  lastResponseStatus: 200,
  lastError: null,
  lastAttemptAt: '2026-11-28T10:00:00.000Z',
  nextAttemptAt: null,
  createdAt: '2026-11-28T10:00:00.000Z',
  ...over,
});

/**
 * The console's webhook routes held in memory. `refuse` answers a create or an update with an error
 * instead; deliveries come in pages of `pageSize` behind an opaque cursor.
 */
function webhooksStandIn(
  initial: {
    endpoints?: WebhookEndpoint[];
    deliveries?: WebhookDelivery[];
    refuse?: { status: number; body: unknown };
    pageSize?: number;
  } = {},
) {
  const state = { endpoints: [...(initial.endpoints ?? [])], deliveries: [...(initial.deliveries ?? [])] };
  const pageSize = initial.pageSize ?? DELIVERIES_PAGE_SIZE;
  const handler = ({ url, method, body }: MockCall): Answer => {
    if (url.pathname === api && method === 'GET')
      return { status: 200, body: { endpoints: state.endpoints } };
    if (url.pathname === api && method === 'POST') {
      if (initial.refuse) return initial.refuse;
      const input = body as WebhookEndpointInput;
      const created = endpoint({
        id: `e${state.endpoints.length + 1}`,
        url: input.url,
        eventTypes: input.eventTypes ?? [],
      });
      state.endpoints.push(created);
      return { status: 201, body: { endpoint: created, secret: SECRET } };
    }
    const one = new RegExp(`^${api}/([^/]+)(/.*)?$`).exec(url.pathname);
    const found = state.endpoints.find((e) => e.id === one?.[1]);
    if (!one || !found) {
      return {
        status: 404,
        body: { errorCode: 'WEBHOOK_NOT_FOUND', message: 'This endpoint no longer exists.' },
      };
    }
    const rest = one[2] ?? '';
    if (rest === '' && method === 'PATCH') {
      if (initial.refuse) return initial.refuse;
      Object.assign(found, body as WebhookEndpointPatch, { disabledReason: null });
      return { status: 200, body: found };
    }
    if (rest === '' && method === 'DELETE') {
      state.endpoints = state.endpoints.filter((e) => e !== found);
      return { status: 204 };
    }
    if (rest === '/rotate-secret' && method === 'POST') {
      return { status: 200, body: { endpoint: found, secret: ROTATED } };
    }
    if (rest === '/deliveries' && method === 'GET') {
      const start = Number(url.searchParams.get('after')?.replace('cursor-', '') ?? 0);
      const page = state.deliveries.slice(start, start + pageSize);
      const next = start + pageSize < state.deliveries.length ? `cursor-${start + pageSize}` : null;
      return { status: 200, body: { deliveries: page, next } };
    }
    const redeliver = /^\/deliveries\/([^/]+)\/redeliver$/.exec(rest);
    if (redeliver && method === 'POST') {
      const row = state.deliveries.find((d) => d.id === redeliver[1])!;
      Object.assign(row, {
        status: 'pending',
        attempts: row.attempts + 1,
        nextAttemptAt: '2026-11-28T11:00:00.000Z',
      });
      return { status: 202, body: { delivery: row } };
    }
    return undefined;
  };
  return { state, handler };
}

const signedIn = (more: (call: MockCall) => Answer | Promise<Answer>, me: unknown = ORG_ADMIN) =>
  signedInToConsole(me, (call) =>
    call.url.pathname.startsWith(`/console/organisations/${ORG}/members`)
      ? { status: 200, body: { members: [], total: 0, totalExact: true, page: 1, pageSize: 25 } }
      : more(call),
  );

/** Opens /admin/webhooks with the stand-in; answers the recorded calls once the section shows. */
async function open(standIn: ReturnType<typeof webhooksStandIn>) {
  const { calls } = signedIn(standIn.handler);
  goTo('/admin/webhooks');
  render(<Router />);
  await screen.findByRole('heading', { name: t.endpoints, level: 3 });
  await waitFor(() => expect(calls.some((c) => c.url.pathname === api)).toBe(true));
  return calls;
}

const item = async (url: string) =>
  (await screen.findByRole('heading', { name: url, level: 4 })).closest('li') as HTMLElement;
const sent = (calls: MockCall[], method: string) =>
  calls
    .filter((c) => c.method === method && c.url.pathname.startsWith(api))
    .map((c) => [c.url.pathname, c.body]);

async function addEndpoint(url: string) {
  const form = screen.getByRole('form', { name: t.add });
  fireEvent.change(within(form).getByLabelText(t.url), { target: { value: url } });
  fireEvent.click(within(form).getByRole('button', { name: t.save }));
}

/** axe's serious and critical violations inside `root` (colour contrast needs a real layout). */
async function seriousViolations(root: Element): Promise<string[]> {
  const results = await axe.run(root, { rules: { 'color-contrast': { enabled: false } } });
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

resetScreenBetweenTests('admin');

type Row = [string, () => Promise<void>];

describe('the Webhooks section', () => {
  const rows: Row[] = [
    [
      'the list: each endpoint with its URL, its events ("All events" or the types) and its state, a disabled one with the reason',
      async () => {
        await open(
          webhooksStandIn({
            endpoints: [
              endpoint(),
              endpoint({
                id: 'e2',
                url: 'https://siem.example.com/in',
                eventTypes: ['session.signed_in', 'role.changed'],
                state: 'paused',
              }),
              endpoint({
                id: 'e3',
                url: 'https://old.example.com/',
                state: 'disabled',
                disabledReason: 'Every delivery failed for 24 hours.',
              }),
            ],
          }),
        );
        expect(
          screen.getByRole('link', { name: consoleCopy.sections.webhooks }).getAttribute('aria-current'),
        ).toBe('page');
        const all = await item(HOOK);
        expect(within(all).getByText(t.allEvents)).toBeTruthy();
        expect(within(all).getByText(t.states.active)).toBeTruthy();
        expect(within(all).getByRole('button', { name: t.pauseNamed(HOOK) })).toBeTruthy();
        const some = await item('https://siem.example.com/in');
        expect(within(some).getByRole('list', { name: t.eventCount(2) }).textContent).toBe(
          'session.signed_inrole.changed',
        );
        expect(within(some).getByText(t.states.paused)).toBeTruthy();
        expect(
          within(some).getByRole('button', { name: t.resumeNamed('https://siem.example.com/in') }),
        ).toBeTruthy();
        const off = await item('https://old.example.com/');
        expect(within(off).getByText(t.disabledBecause('Every delivery failed for 24 hours.'))).toBeTruthy();
        expect(
          within(off).getByRole('button', { name: t.resumeNamed('https://old.example.com/') }),
        ).toBeTruthy();
        expect(screen.queryByText(t.empty)).toBeNull();
      },
    ],
    [
      'no endpoints: the empty state says what to do next, and the add form is there',
      async () => {
        await open(webhooksStandIn());
        expect(await screen.findByText(t.empty)).toBeTruthy();
        expect(screen.getByRole('form', { name: t.add })).toBeTruthy();
        expect(screen.queryByRole('list', { name: t.endpoints })).toBeNull();
      },
    ],
    [
      'adding: "All events" is the default and sent as an empty list; the secret shows once with its warning and the focus; Copy copies it',
      async () => {
        const writeText = vi.fn(async () => {});
        Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
        const calls = await open(webhooksStandIn());
        expect((screen.getByLabelText(t.allEvents) as HTMLInputElement).checked).toBe(true);
        expect(screen.queryByRole('group', { name: t.groups.security })).toBeNull();
        await addEndpoint(` ${HOOK} `);
        expect((await screen.findByTestId('webhook-secret')).textContent).toBe(SECRET);
        const panel = screen.getByRole('region', { name: t.secretHeading });
        expect(panel.textContent).toContain(t.secretOnce);
        await waitFor(() => expect(document.activeElement?.textContent).toBe(t.secretHeading));
        expect(sent(calls, 'POST')).toEqual([[api, { url: HOOK, eventTypes: [] }]]);
        expect(await item(HOOK)).toBeTruthy();
        expect(
          (screen.getByRole('form', { name: t.add }).querySelector('input[type="url"]') as HTMLInputElement)
            .value,
        ).toBe('');
        fireEvent.click(within(panel).getByRole('button', { name: consoleCopy.shownSecret.copy }));
        expect(await screen.findByText(consoleCopy.shownSecret.copied)).toBeTruthy();
        expect(writeText).toHaveBeenCalledWith(SECRET);
        // "I have copied the secret": gone from the page.
        fireEvent.click(within(panel).getByRole('button', { name: consoleCopy.shownSecret.done }));
        expect(document.body.textContent).not.toContain(SECRET);
      },
    ],
    [
      'adding with chosen events: the two groups, the ticked types sent in the contract order',
      async () => {
        const calls = await open(webhooksStandIn());
        const form = screen.getByRole('form', { name: t.add });
        fireEvent.click(within(form).getByLabelText(t.allEvents));
        const security = within(form).getByRole('group', { name: t.groups.security });
        const organisation = within(form).getByRole('group', { name: t.groups.organisation });
        fireEvent.click(within(organisation).getByLabelText(new RegExp(t.eventTypes['role.changed'])));
        fireEvent.click(within(security).getByLabelText(new RegExp(t.eventTypes['session.signed_in'])));
        expect(within(security).queryByLabelText(new RegExp(t.eventTypes['role.changed']))).toBeNull();
        fireEvent.change(within(form).getByLabelText(t.url), { target: { value: HOOK } });
        fireEvent.click(within(form).getByRole('button', { name: t.save }));
        await screen.findByTestId('webhook-secret');
        expect(sent(calls, 'POST')).toEqual([
          [api, { url: HOOK, eventTypes: ['session.signed_in', 'role.changed'] }],
        ]);
      },
    ],
    [
      'chosen events with none ticked: said beside the choice, the focus on it, nothing sent',
      async () => {
        const calls = await open(webhooksStandIn());
        const form = screen.getByRole('form', { name: t.add });
        fireEvent.click(within(form).getByLabelText(t.allEvents));
        fireEvent.change(within(form).getByLabelText(t.url), { target: { value: HOOK } });
        fireEvent.click(within(form).getByRole('button', { name: t.save }));
        expect(await within(form).findByText(t.eventsRequired)).toBeTruthy();
        const events = within(form).getByRole('group', { name: t.events });
        expect(document.getElementById(events.getAttribute('aria-describedby')!)?.textContent).toBe(
          t.eventsRequired,
        );
        expect(document.activeElement).toBe(within(form).getByLabelText(t.allEvents));
        expect(sent(calls, 'POST')).toEqual([]);
      },
    ],
    [
      'the secret is never shown again: gone after leaving the section and coming back, and kept nowhere',
      async () => {
        const standIn = webhooksStandIn();
        await open(standIn);
        await addEndpoint(HOOK);
        await screen.findByTestId('webhook-secret');
        fireEvent.click(screen.getByRole('link', { name: consoleCopy.sections.members }));
        await screen.findByRole('heading', { name: consoleCopy.sections.members, level: 2 });
        fireEvent.click(screen.getByRole('link', { name: consoleCopy.sections.webhooks }));
        expect(await item(HOOK)).toBeTruthy();
        expect(screen.queryByTestId('webhook-secret')).toBeNull();
        expect(screen.queryByRole('region', { name: t.secretHeading })).toBeNull();
        expect(document.body.innerHTML).not.toContain(SECRET);
        expect(JSON.stringify({ ...localStorage })).not.toContain(SECRET);
        expect(JSON.stringify({ ...sessionStorage })).not.toContain(SECRET);
        expect(document.cookie).not.toContain(SECRET);
        expect(window.location.href).not.toContain(SECRET);
      },
    ],
    [
      "a refused URL (WEBHOOK_URL_REFUSED): the server's words beside the field, described by it, the focus on it, the input kept, no secret",
      async () => {
        const message = 'The address 10.0.0.5 is in a private network: use a public https address.';
        await open(
          webhooksStandIn({ refuse: { status: 400, body: { errorCode: 'WEBHOOK_URL_REFUSED', message } } }),
        );
        await addEndpoint('https://10.0.0.5/hook');
        const field = screen.getByLabelText(t.url) as HTMLInputElement;
        expect(await screen.findByText(message)).toBeTruthy();
        expect(field.getAttribute('aria-invalid')).toBe('true');
        const described = field
          .getAttribute('aria-describedby')!
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent);
        expect(described).toContain(message);
        await waitFor(() => expect(document.activeElement).toBe(field));
        expect(field.value).toBe('https://10.0.0.5/hook');
        expect(screen.queryByRole('alert')).toBeNull();
        expect(screen.queryByTestId('webhook-secret')).toBeNull();
      },
    ],
    [
      'a receiver that redirects the test request sent at save: the reason beside the field, nothing added, no secret',
      async () => {
        const message =
          'The test request sent to the URL failed (HTTP 302): The receiver answered with a redirect; redirects are not followed.';
        const calls = await open(
          webhooksStandIn({
            refuse: { status: 400, body: { errorCode: 'WEBHOOK_URL_REFUSED', reason: 'redirect', message } },
          }),
        );
        await addEndpoint(HOOK);
        const field = screen.getByLabelText(t.url) as HTMLInputElement;
        expect(await screen.findByText(message)).toBeTruthy();
        expect(field.getAttribute('aria-invalid')).toBe('true');
        expect(field.value).toBe(HOOK);
        expect(sent(calls, 'POST')).toHaveLength(1);
        expect(screen.queryByTestId('webhook-secret')).toBeNull();
        expect(screen.queryByText(t.added(HOOK))).toBeNull();
      },
    ],
    [
      'no URL or not a URL: said beside the field before anything is sent',
      async () => {
        const calls = await open(webhooksStandIn());
        await addEndpoint('');
        expect(await screen.findByText(t.urlRequired)).toBeTruthy();
        await addEndpoint('hooks.example.com');
        expect(await screen.findByText(t.urlInvalid)).toBeTruthy();
        expect(document.activeElement).toBe(screen.getByLabelText(t.url));
        expect(sent(calls, 'POST')).toEqual([]);
      },
    ],
    [
      "another refusal (WEBHOOK_LIMIT_REACHED): the server's words in the alert line, the input kept",
      async () => {
        const message = 'Your organisation has 10 endpoints, the most it may have.';
        await open(
          webhooksStandIn({ refuse: { status: 409, body: { errorCode: 'WEBHOOK_LIMIT_REACHED', message } } }),
        );
        await addEndpoint(HOOK);
        expect((await screen.findByRole('alert')).textContent).toBe(message);
        expect((screen.getByLabelText(t.url) as HTMLInputElement).value).toBe(HOOK);
      },
    ],
    [
      'pause, then resume: PATCH state, the state and the button follow, the focus stays on the button',
      async () => {
        const calls = await open(webhooksStandIn({ endpoints: [endpoint()] }));
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.pauseNamed(HOOK) }));
        expect(await screen.findByText(t.paused(HOOK))).toBeTruthy();
        const resume = await screen.findByRole('button', { name: t.resumeNamed(HOOK) });
        expect(within(await item(HOOK)).getByText(t.states.paused)).toBeTruthy();
        await waitFor(() => expect(document.activeElement).toBe(resume));
        fireEvent.click(resume);
        expect(await screen.findByText(t.resumed(HOOK))).toBeTruthy();
        expect(await screen.findByRole('button', { name: t.pauseNamed(HOOK) })).toBeTruthy();
        expect(sent(calls, 'PATCH')).toEqual([
          [`${api}/e1`, { state: 'paused' }],
          [`${api}/e1`, { state: 'active' }],
        ]);
      },
    ],
    [
      'a disabled endpoint resumes with state active; its reason goes',
      async () => {
        const calls = await open(
          webhooksStandIn({
            endpoints: [endpoint({ state: 'disabled', disabledReason: 'Failing for 24 hours.' })],
          }),
        );
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.resumeNamed(HOOK) }));
        expect(await screen.findByText(t.resumed(HOOK))).toBeTruthy();
        await waitFor(() =>
          expect(screen.queryByText(t.disabledBecause('Failing for 24 hours.'))).toBeNull(),
        );
        expect(sent(calls, 'PATCH')).toEqual([[`${api}/e1`, { state: 'active' }]]);
      },
    ],
    [
      'editing: the form opens filled in with the focus on the URL; saved with PATCH url and events; Cancel sends nothing and gives the focus back',
      async () => {
        const calls = await open(
          webhooksStandIn({ endpoints: [endpoint({ eventTypes: ['member.added'] })] }),
        );
        const edit = within(await item(HOOK)).getByRole('button', { name: t.editNamed(HOOK) });
        fireEvent.click(edit);
        const form = screen.getByRole('form', { name: t.editHeading(HOOK) });
        const url = within(form).getByLabelText(t.url) as HTMLInputElement;
        expect(url.value).toBe(HOOK);
        await waitFor(() => expect(document.activeElement).toBe(url));
        expect((within(form).getByLabelText(t.allEvents) as HTMLInputElement).checked).toBe(false);
        expect(
          (within(form).getByLabelText(new RegExp(t.eventTypes['member.added'])) as HTMLInputElement).checked,
        ).toBe(true);
        fireEvent.click(within(form).getByRole('button', { name: t.cancel }));
        await waitFor(() =>
          expect(document.activeElement).toBe(screen.getByRole('button', { name: t.editNamed(HOOK) })),
        );
        expect(sent(calls, 'PATCH')).toEqual([]);

        fireEvent.click(screen.getByRole('button', { name: t.editNamed(HOOK) }));
        const again = screen.getByRole('form', { name: t.editHeading(HOOK) });
        fireEvent.change(within(again).getByLabelText(t.url), {
          target: { value: 'https://hooks.example.com/v2' },
        });
        fireEvent.click(within(again).getByLabelText(t.allEvents));
        fireEvent.click(within(again).getByRole('button', { name: t.saveChanges }));
        expect(await screen.findByText(t.saved('https://hooks.example.com/v2'))).toBeTruthy();
        expect(await item('https://hooks.example.com/v2')).toBeTruthy();
        expect(sent(calls, 'PATCH')).toEqual([
          [`${api}/e1`, { url: 'https://hooks.example.com/v2', eventTypes: [] }],
        ]);
        await waitFor(() =>
          expect(document.activeElement).toBe(
            screen.getByRole('button', { name: t.editNamed('https://hooks.example.com/v2') }),
          ),
        );
      },
    ],
    [
      'editing to a refused URL: the message beside the edit form field, the form stays open',
      async () => {
        const message = 'Redirects are not followed: give the final address.';
        await open(
          webhooksStandIn({
            endpoints: [endpoint()],
            refuse: { status: 400, body: { errorCode: 'WEBHOOK_URL_REFUSED', message } },
          }),
        );
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.editNamed(HOOK) }));
        const form = screen.getByRole('form', { name: t.editHeading(HOOK) });
        fireEvent.click(within(form).getByRole('button', { name: t.saveChanges }));
        expect(await within(form).findByText(message)).toBeTruthy();
        expect(document.activeElement).toBe(within(form).getByLabelText(t.url));
      },
    ],
    [
      'deleting asks first, the focus on Cancel; Cancel and Escape send nothing and give the focus back to Delete',
      async () => {
        const calls = await open(webhooksStandIn({ endpoints: [endpoint()] }));
        const remove = within(await item(HOOK)).getByRole('button', { name: t.removeNamed(HOOK) });
        fireEvent.click(remove);
        const dialog = screen.getByRole('alertdialog');
        expect(dialog.textContent).toContain(t.confirmRemove(HOOK));
        expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: t.cancel }));
        fireEvent.click(within(dialog).getByRole('button', { name: t.cancel }));
        expect(screen.queryByRole('alertdialog')).toBeNull();
        expect(document.activeElement).toBe(remove);
        fireEvent.click(remove);
        expect(document.activeElement).toBe(
          within(screen.getByRole('alertdialog')).getByRole('button', { name: t.cancel }),
        );
        fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
        expect(screen.queryByRole('alertdialog')).toBeNull();
        expect(document.activeElement).toBe(remove);
        expect(sent(calls, 'DELETE')).toEqual([]);
      },
    ],
    [
      'deleting confirmed: DELETE, the endpoint goes, the focus on the Endpoints heading, the empty state',
      async () => {
        const calls = await open(webhooksStandIn({ endpoints: [endpoint()] }));
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.removeNamed(HOOK) }));
        fireEvent.click(screen.getByRole('button', { name: t.confirmRemoveButton }));
        expect(await screen.findByText(t.removed(HOOK))).toBeTruthy();
        expect(await screen.findByText(t.empty)).toBeTruthy();
        expect(sent(calls, 'DELETE')).toEqual([[`${api}/e1`, undefined]]);
        await waitFor(() => expect(document.activeElement?.textContent).toBe(t.endpoints));
      },
    ],
    [
      'an endpoint gone meanwhile (WEBHOOK_NOT_FOUND): the alert, and the list loads again',
      async () => {
        const standIn = webhooksStandIn({ endpoints: [endpoint()] });
        const calls = await open(standIn);
        const pause = within(await item(HOOK)).getByRole('button', { name: t.pauseNamed(HOOK) });
        standIn.state.endpoints = [];
        fireEvent.click(pause);
        expect((await screen.findByRole('alert')).textContent).toBe('This endpoint no longer exists.');
        expect(await screen.findByText(t.empty)).toBeTruthy();
        expect(calls.filter((c) => c.method === 'GET' && c.url.pathname === api)).toHaveLength(2);
      },
    ],
    [
      'rotating asks first and says the old secret keeps signing for 24 hours; confirmed, the new secret shows once',
      async () => {
        const calls = await open(webhooksStandIn({ endpoints: [endpoint()] }));
        const rotate = within(await item(HOOK)).getByRole('button', { name: t.rotateNamed(HOOK) });
        fireEvent.click(rotate);
        const dialog = screen.getByRole('alertdialog');
        expect(dialog.textContent).toBe(`${t.confirmRotate(HOOK)}${t.confirmRotateButton}${t.cancel}`);
        expect(t.confirmRotate(HOOK)).toContain('24 hours');
        fireEvent.keyDown(document.activeElement!, { key: 'Escape' });
        expect(document.activeElement).toBe(rotate);
        expect(sent(calls, 'POST')).toEqual([]);
        fireEvent.click(rotate);
        fireEvent.click(screen.getByRole('button', { name: t.confirmRotateButton }));
        expect((await screen.findByTestId('webhook-secret')).textContent).toBe(ROTATED);
        expect(screen.getByText(t.rotated(HOOK))).toBeTruthy();
        expect(screen.queryByRole('alertdialog')).toBeNull();
        await waitFor(() => expect(document.activeElement?.textContent).toBe(t.secretHeading));
        expect(sent(calls, 'POST')).toEqual([[`${api}/e1/rotate-secret`, undefined]]);
      },
    ],
    [
      'rotating refused: the message in the alert line, no secret, the focus back on Rotate secret',
      async () => {
        const standIn = webhooksStandIn({ endpoints: [endpoint()] });
        signedIn((call) =>
          call.url.pathname.endsWith('/rotate-secret')
            ? { status: 503, body: { errorCode: 'UNAVAILABLE', message: 'Try again in a minute.' } }
            : standIn.handler(call),
        );
        goTo('/admin/webhooks');
        render(<Router />);
        const rotate = within(await item(HOOK)).getByRole('button', { name: t.rotateNamed(HOOK) });
        fireEvent.click(rotate);
        fireEvent.click(screen.getByRole('button', { name: t.confirmRotateButton }));
        expect((await screen.findByRole('alert')).textContent).toBe('Try again in a minute.');
        expect(screen.queryByTestId('webhook-secret')).toBeNull();
        await waitFor(() => expect(document.activeElement).toBe(rotate));
      },
    ],
    [
      'deliveries: a table with every column; "Load more" follows the cursor and appends; no button at the end',
      async () => {
        const deliveries = [
          delivery(1, {
            status: 'failed',
            lastResponseStatus: null,
            lastError: 'timed out after 5 s',
            attempts: 3,
            nextAttemptAt: '2026-11-28T12:00:00.000Z',
          }),
          delivery(2),
          delivery(3, { eventType: 'member.added' }),
        ];
        const calls = await open(webhooksStandIn({ endpoints: [endpoint()], deliveries, pageSize: 2 }));
        const show = within(await item(HOOK)).getByRole('button', { name: t.deliveriesNamed(HOOK) });
        expect(show.getAttribute('aria-expanded')).toBe('false');
        fireEvent.click(show);
        expect(show.getAttribute('aria-expanded')).toBe('true');
        const region = await screen.findByRole('region', { name: t.deliveriesHeading(HOOK) });
        expect(show.getAttribute('aria-controls')).toBe(region.id);
        const table = await within(region).findByRole('table', { name: t.deliveriesHeading(HOOK) });
        expect(
          within(table)
            .getAllByRole('columnheader')
            .map((h) => h.textContent),
        ).toEqual([...Object.values(t.columns), t.redeliver]);
        const first = within(table).getAllByRole('row')[1]!;
        expect(
          within(first)
            .getAllByRole('cell')
            .slice(0, 5)
            .map((c) => c.textContent),
        ).toEqual(['role.changed', 'msg_1', t.deliveryStates.failed, '3', 'timed out after 5 s']);
        expect(within(table).getAllByRole('row')).toHaveLength(3);
        fireEvent.click(within(region).getByRole('button', { name: t.loadMore }));
        await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(4));
        expect(within(table).getByText('msg_3')).toBeTruthy();
        expect(within(region).queryByRole('button', { name: t.loadMore })).toBeNull();
        const pages = calls.filter((c) => c.url.pathname === `${api}/e1/deliveries`).map((c) => c.url.search);
        expect(pages).toEqual([
          `?limit=${DELIVERIES_PAGE_SIZE}`,
          `?limit=${DELIVERIES_PAGE_SIZE}&after=cursor-2`,
        ]);
      },
    ],
    [
      'redeliver: 202, the row takes the answer (pending, one more attempt), the status says so; a pending row has no button',
      async () => {
        const calls = await open(
          webhooksStandIn({
            endpoints: [endpoint()],
            deliveries: [
              delivery(1, { status: 'abandoned', lastResponseStatus: 500, attempts: 9 }),
              delivery(2, { status: 'pending', attempts: 0 }),
            ],
          }),
        );
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.deliveriesNamed(HOOK) }));
        const region = await screen.findByRole('region', { name: t.deliveriesHeading(HOOK) });
        const row = (await within(region).findByText('msg_1')).closest('tr')!;
        expect(within(row).getByText(t.httpStatus(500))).toBeTruthy();
        expect(within(region).queryByRole('button', { name: t.redeliverNamed('msg_2') })).toBeNull();
        fireEvent.click(within(row).getByRole('button', { name: t.redeliverNamed('msg_1') }));
        expect(await screen.findByText(t.redelivered('msg_1'))).toBeTruthy();
        const updated = within(region).getByText('msg_1').closest('tr')!;
        expect(within(updated).getByText(t.deliveryStates.pending)).toBeTruthy();
        expect(within(updated).getByText('10')).toBeTruthy();
        expect(sent(calls, 'POST')).toEqual([[`${api}/e1/deliveries/d1/redeliver`, undefined]]);
      },
    ],
    [
      'no deliveries yet: said so, no Load more',
      async () => {
        await open(webhooksStandIn({ endpoints: [endpoint()] }));
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.deliveriesNamed(HOOK) }));
        expect(await screen.findByText(t.noDeliveries)).toBeTruthy();
        expect(screen.queryByRole('button', { name: t.loadMore })).toBeNull();
      },
    ],
    [
      'deliveries refused: the message in the alert line',
      async () => {
        const standIn = webhooksStandIn({ endpoints: [endpoint()] });
        signedIn((call) =>
          call.url.pathname.endsWith('/deliveries')
            ? { status: 503, body: { errorCode: 'UNAVAILABLE', message: 'Try again in a minute.' } }
            : standIn.handler(call),
        );
        goTo('/admin/webhooks');
        render(<Router />);
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.deliveriesNamed(HOOK) }));
        expect((await screen.findByRole('alert')).textContent).toBe('Try again in a minute.');
      },
    ],
    [
      'a narrow window: the deliveries are a list, each value under its column name, with its Redeliver button',
      async () => {
        vi.stubGlobal('matchMedia', (query: string) => ({
          matches: query.includes('max-width'),
          media: query,
          addEventListener: () => {},
          removeEventListener: () => {},
        }));
        await open(webhooksStandIn({ endpoints: [endpoint()], deliveries: [delivery(1)] }));
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.deliveriesNamed(HOOK) }));
        const region = await screen.findByRole('region', { name: t.deliveriesHeading(HOOK) });
        const list = await within(region).findByRole('list', { name: t.deliveriesHeading(HOOK) });
        expect(within(region).queryByRole('table')).toBeNull();
        const entry = within(list).getAllByRole('listitem')[0]!;
        expect(
          within(entry)
            .getAllByRole('term')
            .map((d) => d.textContent),
        ).toEqual(Object.values(t.columns));
        expect(within(entry).getByRole('button', { name: t.redeliverNamed('msg_1') })).toBeTruthy();
      },
    ],
    [
      `a wait over ${SLOW_WAIT_MS} ms shows "Loading…"; a quick answer shows none`,
      async () => {
        const standIn = webhooksStandIn();
        let answer: (value: Answer) => void = () => {};
        const { calls } = signedIn((call) =>
          call.url.pathname === api
            ? new Promise<Answer>((resolve) => (answer = resolve))
            : standIn.handler(call),
        );
        goTo('/admin/webhooks');
        render(<Router />);
        await screen.findByRole('heading', { name: t.endpoints, level: 3 });
        await waitFor(() => expect(calls.some((c) => c.url.pathname === api)).toBe(true));
        expect(screen.queryByText(consoleCopy.loading)).toBeNull();
        expect(
          await screen.findByText(consoleCopy.loading, undefined, { timeout: SLOW_WAIT_MS * 5 }),
        ).toBeTruthy();
        await act(async () => answer(standIn.handler(calls.find((c) => c.url.pathname === api)!)));
        expect(await screen.findByText(t.empty)).toBeTruthy();
        expect(screen.queryByText(consoleCopy.loading)).toBeNull();
      },
    ],
    [
      'axe finds nothing serious with endpoints, the chosen-events form, a new secret and the deliveries open',
      async () => {
        await open(
          webhooksStandIn({
            endpoints: [
              endpoint(),
              endpoint({
                id: 'e2',
                url: 'https://siem.example.com/in',
                eventTypes: ['role.changed'],
                state: 'disabled',
                disabledReason: 'Failing.',
              }),
            ],
            deliveries: [delivery(1), delivery(2, { status: 'pending' })],
            pageSize: 1,
          }),
        );
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.deliveriesNamed(HOOK) }));
        await screen.findByRole('table', { name: t.deliveriesHeading(HOOK) });
        await addEndpoint('https://third.example.com/');
        await screen.findByTestId('webhook-secret');
        fireEvent.click(within(screen.getByRole('form', { name: t.add })).getByLabelText(t.allEvents));
        await screen.findByRole('group', { name: t.groups.organisation });
        fireEvent.click(within(await item(HOOK)).getByRole('button', { name: t.removeNamed(HOOK) }));
        expect(await seriousViolations(document.body)).toEqual([]);
      },
    ],
  ];

  it.each(rows)('%s', async (_rule, run) => run());

  it('a member without the settings permission sees no Webhooks link, and Access Denied at its path; nothing is asked', async () => {
    const { calls } = signedIn(() => undefined, {
      ...ORG_ADMIN,
      role: 'admin',
      permissions: ['ViewUsers'],
    });
    goTo('/admin/members');
    render(<Router />);
    await screen.findByRole('link', { name: consoleCopy.sections.members });
    expect(screen.queryByRole('link', { name: consoleCopy.sections.webhooks })).toBeNull();
    cleanup();
    goTo('/admin/webhooks');
    render(<Router />);
    expect(await screen.findByText('You are not authorised to access this page.')).toBeTruthy();
    expect(calls.some((c) => c.url.pathname.includes('/webhooks'))).toBe(false);
  });
});
